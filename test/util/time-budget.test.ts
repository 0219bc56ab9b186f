import t from 'tap';
import { TimeBudget } from '../../src/util/time-budget.js';

// A simulated clock: the work "takes" what the test moves the clock by.
t.test('work runs while the budget is not in debt; what it took is charged after, also when it throws', async (t) => {
  const clock = { now: 0 };
  const budget = new TimeBudget(50, 0.1, () => clock.now);
  t.ok(budget.canRun(), 'a full burst');
  t.equal(budget.timed(() => ((clock.now += 80), 'done')), 'done', 'the work runs whole, past the burst');
  t.equal(budget.spentMs, 80);
  t.notOk(budget.canRun(), '30 ms in debt (the bucket was full when the work began)');
  clock.now += 299;
  t.notOk(budget.canRun(), 'a tenth refills: 299 ms give 29.9');
  clock.now += 2;
  t.ok(budget.canRun(), 'out of debt after 300 ms');
  t.throws(() => budget.timed(() => {
    clock.now += 10;
    throw new Error('gave up');
  }));
  t.equal(budget.spentMs, 90, 'a throwing work is charged too');
  clock.now += 10_000;
  budget.timed(() => (clock.now += 60));
  t.notOk(budget.canRun(), 'the refill stops at the burst: 60 ms of work are past it');
});
