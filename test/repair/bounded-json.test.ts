import t from 'tap';
import { RepairBudget, REPAIR_MAX_CHARS, REPAIR_TIME_BURST_MS, REPAIR_TIME_SHARE, repairJsonBounded } from '../../src/repair/bounded-json.js';

// The budget bounds the time a tenant's repairs take, not only their size: jsonrepair's worst
// shapes ({'a'a'a…}) cost 30–130 ms at the 1 KB cap depending on the machine, more than the
// length² price assumed. Simulated clocks only: each reading advances the time, so jsonrepair "takes"
// what the clock says, whatever this machine's speed.

/** A clock that moves `step` ms at each reading: every repair is timed at `step` ms. */
function steppingClock(step: number): { now: () => number; elapsed: () => number } {
  let time = 0;
  return { now: () => (time += step), elapsed: () => time };
}

// A worst-case size that jsonrepair handles at once: the simulated clock says how long it took.
const WORST_SIZE = `{"note": "${'x'.repeat(REPAIR_MAX_CHARS - 10)}`;

t.test('slow repairs put the tenant in debt: a tenth of its time at most, whatever a repair takes', async (t) => {
  for (const step of [20, 50, 150]) {
    const clock = steppingClock(step);
    const budget = new RepairBudget({ now: clock.now });
    let ran = 0;
    let busy = 0;
    for (let i = 0; i < 400; i++) {
      const outcome = repairJsonBounded(WORST_SIZE, budget);
      if ('repaired' in outcome) ran++;
      else if ('skipped' in outcome && outcome.skipped === 'busy') busy++;
    }
    t.equal(ran + busy, 400, 'each one repaired or skipped as busy');
    const repairing = ran * step;
    // The time bucket's burst plus the repair that took it into debt.
    const allowance = REPAIR_TIME_BURST_MS + step;
    t.ok(repairing <= clock.elapsed() * REPAIR_TIME_SHARE + allowance, `${step} ms a repair: ${ran} of 400 ran, ${repairing} of ${clock.elapsed()} ms repairing`);
    t.ok(ran > 1, 'and it still repairs, at its rate');
  }
});

t.test('repairs that take no time are bounded by their size alone, as before', async (t) => {
  const frozen = new RepairBudget({ now: () => 1_000 });
  t.ok('repaired' in repairJsonBounded(WORST_SIZE, frozen));
  t.ok('repaired' in repairJsonBounded(WORST_SIZE, frozen), 'two worst-case sizes in a burst');
  t.equal(frozen.msRepairing, 0, 'no time measured on a frozen clock');
  t.match(repairJsonBounded('{"a": 1', frozen), { skipped: 'busy' });
});

t.test('debt is per budget: a slow tenant leaves another untouched', async (t) => {
  const clock = steppingClock(500);
  const slow = new RepairBudget({ now: clock.now });
  const other = new RepairBudget({ now: clock.now });
  t.ok('repaired' in repairJsonBounded(WORST_SIZE, slow));
  t.ok(slow.msRepairing >= 500, "one repair timed at 500 ms, past the 200 ms burst");
  t.match(repairJsonBounded("{'x': 1", slow), { skipped: 'busy' }, 'the slow tenant waits for its refill');
  t.match(repairJsonBounded("{'x': 1", other), { repaired: '{"x": 1}' });
});
