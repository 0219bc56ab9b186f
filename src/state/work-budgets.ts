import { RepairBudget } from '../util/bounded-json.js';
import { ANONYMOUS_SCOPE, scopeOf } from '../util/scope.js';

// Best-effort work with a worst case far above its usual cost (jsonrepair on broken arguments,
// schema compiles) is paid from token buckets, one set per tenant scope, so one gateway key sending
// crafted input spends only its own: every other key's repairs go on.
//
// The store is a Map built once from the configured gateway keys (fixed for the app's life) plus
// the anonymous scope: its size is set by config, never by requests. A scope outside that list
// (none reaches the routes: authentication only admits configured keys) shares one extra set, so
// the store never grows. The process's worst case is therefore (configured keys + 2) × one bucket:
// per tenant a burst of 2 worst-case repairs then one per 100 ms (and 50 ms of measured time, then a
// tenth of the event loop), 64 K characters of new schemas then 16 per ms, and a 32 KB repair memo
// (bounded-json.ts).

/** What one tenant may spend on best-effort work. */
export interface WorkBudgets {
  repair: RepairBudget;
}

export function createWorkBudgets(): WorkBudgets {
  return { repair: new RepairBudget() };
}

export class WorkBudgetStore {
  private readonly byScope = new Map<string, WorkBudgets>();
  private readonly unlisted: WorkBudgets;

  /** One set of budgets per scope in `scopes` (and one shared by any other scope). */
  constructor(scopes: Iterable<string>, create: () => WorkBudgets = createWorkBudgets) {
    for (const scope of scopes) if (!this.byScope.has(scope)) this.byScope.set(scope, create());
    this.unlisted = create();
  }

  /** The budgets of the scope's tenant; look them up once per request. */
  forScope(scope: string): WorkBudgets {
    return this.byScope.get(scope) ?? this.unlisted;
  }

  /** How many scopes have their own budgets (for tests). */
  get size(): number {
    return this.byScope.size;
  }
}

/** The store for a gateway configured with these key names: the anonymous scope and one per key. */
export function workBudgetsFor(keyNames: readonly string[]): WorkBudgetStore {
  return new WorkBudgetStore([ANONYMOUS_SCOPE, ...keyNames.map((name) => scopeOf(name))]);
}
