import t from 'tap';
import { RepairBudget, REPAIR_MAX_CHARS } from '../../src/util/bounded-json.js';
import { ANONYMOUS_SCOPE, scopeOf } from '../../src/util/scope.js';
import { createWorkBudgets, WorkBudgetStore, workBudgetsFor } from '../../src/state/work-budgets.js';

t.test('one set of budgets per configured key and the anonymous scope; the same set on every lookup', async (t) => {
  const store = workBudgetsFor(['alpha', 'beta']);
  t.equal(store.size, 3, 'anonymous + two keys');
  const alpha = store.forScope(scopeOf('alpha'));
  const beta = store.forScope(scopeOf('beta'));
  t.equal(store.forScope(scopeOf('alpha')), alpha, 'stable: state lives across requests');
  t.not(alpha, beta);
  t.not(alpha.repair, beta.repair);
  t.not(store.forScope(ANONYMOUS_SCOPE), alpha);
  t.ok(alpha.repair instanceof RepairBudget);
});

t.test('a scope outside the configured ones shares one extra set: the store never grows', async (t) => {
  const store = workBudgetsFor(['alpha']);
  const strangers = Array.from({ length: 1000 }, (_, i) => store.forScope(scopeOf(`unknown-${i}`)));
  t.equal(store.size, 2, 'still anonymous + alpha');
  t.ok(strangers.every((budgets) => budgets === strangers[0]), 'one shared set');
  t.not(strangers[0], store.forScope(scopeOf('alpha')));
});

t.test("spending one scope's repair budget leaves the others' whole", async (t) => {
  const store = new WorkBudgetStore(['a', 'b'], createWorkBudgets);
  const worst = REPAIR_MAX_CHARS;
  const a = store.forScope('a').repair;
  t.ok(a.take(worst) && a.take(worst), 'a burst of two worst cases');
  t.notOk(a.take(worst), 'then a is busy');
  t.ok(store.forScope('b').repair.take(worst), 'b is not');
});
