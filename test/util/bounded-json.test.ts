import t from 'tap';
import { RepairBudget, REPAIR_MAX_CHARS, REPAIR_MEMO_BYTES, REPAIR_TIME_BURST_MS, REPAIR_TIME_SHARE, repairJsonBounded } from '../../src/util/bounded-json.js';

// The budget bounds the time a tenant's repairs take, not only their size: jsonrepair's worst
// shapes ({'a'a'a…}) cost 30–130 ms at the 1 KB cap depending on the machine, more than the
// length² price assumed. Simulated clocks only: each reading advances the time, so jsonrepair "takes"
// what the clock says, whatever this machine's speed.

/** A clock that moves `step` ms at each reading: every repair is timed at `step` ms. */
function steppingClock(step: number): { now: () => number; elapsed: () => number } {
  let time = 0;
  return { now: () => (time += step), elapsed: () => time };
}

/** A worst-case size that jsonrepair handles at once (the simulated clock says how long it took); a new text each `i`, as the memo would answer a repeat. */
const worstSize = (i: number): string => `{"note": "${String(i).padEnd(REPAIR_MAX_CHARS - 10, 'x')}`;

t.test('slow repairs put the tenant in debt: a tenth of its time at most, whatever a repair takes', async (t) => {
  for (const step of [20, 50, 150]) {
    const clock = steppingClock(step);
    const budget = new RepairBudget({ now: clock.now });
    let ran = 0;
    let busy = 0;
    for (let i = 0; i < 400; i++) {
      const outcome = repairJsonBounded(worstSize(i), budget);
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
  t.ok('repaired' in repairJsonBounded(worstSize(1), frozen));
  t.ok('repaired' in repairJsonBounded(worstSize(2), frozen), 'two worst-case sizes in a burst');
  t.equal(frozen.time.spentMs, 0, 'no time measured on a frozen clock');
  t.match(repairJsonBounded('{"a": 1', frozen), { skipped: 'busy' });
});

t.test('debt is per budget: a slow tenant leaves another untouched', async (t) => {
  const clock = steppingClock(500);
  const slow = new RepairBudget({ now: clock.now });
  const other = new RepairBudget({ now: clock.now });
  t.ok('repaired' in repairJsonBounded(worstSize(1), slow));
  t.ok(slow.time.spentMs >= 500, "one repair timed at 500 ms, past the 200 ms burst");
  t.match(repairJsonBounded("{'x': 1", slow), { skipped: 'busy' }, 'the slow tenant waits for its refill');
  t.match(repairJsonBounded("{'x': 1", other), { repaired: '{"x": 1}' });
});

t.test('the same text is repaired once: a repeat is answered from the memo, free, even when busy', async (t) => {
  const budget = new RepairBudget({ now: () => 1_000 });
  const broken = "{'city': 'Oslo', 'days': 3,}";
  const first = repairJsonBounded(broken, budget);
  t.same(first, { repaired: '{"city": "Oslo", "days": 3}' });
  const chars = budget.charsRepaired;
  t.same(repairJsonBounded(` ${broken}`.slice(1), budget), first, 'an equal text, another string');
  t.equal(budget.charsRepaired, chars, 'jsonrepair did not run again');
  t.equal(budget.recalled, 1);
  const hopeless = '{"a": [}]';
  const gaveUp = repairJsonBounded(hopeless, budget);
  let spent = 1;
  while ('repaired' in repairJsonBounded(worstSize(spent), budget)) spent++;
  t.match(repairJsonBounded(worstSize(spent + 1), budget), { skipped: 'busy' }, 'the budget is spent');
  t.same(repairJsonBounded(broken, budget), first, 'a remembered repair still comes back');
  t.same(repairJsonBounded(hopeless, budget), gaveUp, 'and so does a text jsonrepair gave up on');
});

t.test('the memo is bounded in bytes: old texts are forgotten, the newest kept', async (t) => {
  const budget = new RepairBudget({ capacity: Infinity, now: () => 1_000 });
  const text = (i: number): string => `{'n': ${i}, 'pad': '${'p'.repeat(200)}'`;
  const count = Math.ceil(REPAIR_MEMO_BYTES / 400) * 4;
  for (let i = 0; i < count; i++) repairJsonBounded(text(i), budget);
  const chars = budget.charsRepaired;
  repairJsonBounded(text(count - 1), budget);
  t.equal(budget.charsRepaired, chars, 'the newest is remembered');
  repairJsonBounded(text(0), budget);
  t.ok(budget.charsRepaired > chars, 'the oldest was forgotten: repaired again');
});
