import t from 'tap';
import { createNameResolver, editDistance, FuzzyBudget, LOOKUP_CELLS, normalizeToolName } from '../../src/toolcalls/names.js';

/** A resolver for `declared` that spends `budget` (one tenant's; a fresh default-sized one unless given). */
function resolverFor(declared: readonly string[], aliases: Record<string, string> = {}, budget = new FuzzyBudget()) {
  const resolver = createNameResolver(declared, aliases);
  return Object.assign((called: string) => resolver(called, budget), { declared: resolver.declared });
}

const declared = ['search_procedure', 'get_weather', 'get_user', 'read_file', 'list_files', 'getCalendarEvents', 'send-email'];
const resolve = resolverFor(declared, { lookup: 'search_procedure', weather_now: 'get_weather', dangling: 'not_declared' });

t.test('exact and configured aliases', async (t) => {
  t.same(resolve('get_weather'), { name: 'get_weather', how: 'exact' });
  t.same(resolve('lookup'), { name: 'search_procedure', how: 'alias' });
  t.same(resolve('weather_now'), { name: 'get_weather', how: 'alias' });
  t.equal(resolve('dangling'), null, 'an alias to an undeclared tool is ignored');
});

t.test('the incident: tool_search_procedure → search_procedure', async (t) => {
  t.same(resolve('tool_search_procedure'), { name: 'search_procedure', how: 'normalized' });
});

t.test('normalization: prefixes, affixes, case, separators', async (t) => {
  const cases: Array<[string, string]> = [
    ['functions.get_weather', 'get_weather'],
    ['default_api:get_weather', 'get_weather'],
    ['default_api.get_weather', 'get_weather'],
    ['tools.read_file', 'read_file'],
    ['search_procedure_tool', 'search_procedure'],
    ['GET_WEATHER', 'get_weather'],
    ['getWeather', 'get_weather'],
    ['get-weather', 'get_weather'],
    ['get weather', 'get_weather'],
    ['getweather', 'get_weather'],
    ['get_calendar_events', 'getCalendarEvents'],
    ['send_email', 'send-email'],
  ];
  for (const [called, expected] of cases) t.same(resolve(called), { name: expected, how: 'normalized' }, called);
});

t.test('fuzzy: a typo maps to the unique close name', async (t) => {
  t.same(resolve('search_procedures'), { name: 'search_procedure', how: 'fuzzy' });
  t.same(resolve('serch_procedure'), { name: 'search_procedure', how: 'fuzzy' });
  t.same(resolve('get_wether'), { name: 'get_weather', how: 'fuzzy' });
});

t.test('unrelated names are not mapped', async (t) => {
  for (const called of ['set_user', 'delete_user', 'write_file', 'get_time', 'search', 'procedure', 'weather', 'launch_rockets', 'x', '', 'tool_', 'functions.']) {
    t.equal(resolve(called), null, JSON.stringify(called));
  }
});

t.test('ambiguity is never guessed', async (t) => {
  const twins = resolverFor(['get-item', 'get_item', 'list_items_a', 'list_items_b']);
  t.same(twins('get-item'), { name: 'get-item', how: 'exact' });
  t.equal(twins('GET_ITEM'), null, 'two declared names normalize alike');
  t.equal(twins('list_items_c'), null, 'two fuzzy candidates');
});

t.test('resolver is pure and cached', async (t) => {
  t.same(resolve('Tool_Search_Procedure'), resolve('Tool_Search_Procedure'));
  t.same(resolve.declared, declared);
  t.equal(normalizeToolName('functions.tool_Search-Procedure_tool'), 'search_procedure');
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('abcdef', 'uvwxyz', 2), 3, 'gives up past the limit');
});

// Issue 14: 512 declared 2,000-character names and 100 near-miss calls took 10 s of edit distance.
t.test('fuzzy matching of very long names is off; the band is exact within its limit', async (t) => {
  const long = 'abcdefghij'.repeat(30); // 300 letters, over FUZZY_MAX_LENGTH
  const resolveLong = resolverFor([`${long}x`]);
  t.equal(resolveLong(`${long}y`), null, 'a one-letter miss on a 300-letter name is not guessed');
  t.equal(resolveLong(`${long}x`)?.how, 'exact', 'exact and normalized still work at any length');
  t.equal(resolveLong(`functions.${long}x`)?.how, 'normalized');
  const words = ['kitten', 'sitting', 'saturday', 'sunday', 'flaw', 'lawn', 'abcdef', 'azced', ''];
  const full = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length];
  };
  for (const a of words) {
    for (const b of words) {
      for (const limit of [0, 1, 2, 3, 10]) {
        const exact = full(a, b);
        t.equal(editDistance(a, b, limit), exact <= limit ? exact : limit + 1, `${a}/${b} limit ${limit}`);
      }
    }
  }
});

t.test('fuzzy work per lookup is bounded: near misses over many long names give up, no stall', async (t) => {
  // Every declared name shares a long stem and differs from the called one only in a 40-letter tail:
  // just over the distance limit, so each comparison runs almost to the end before failing.
  const cellsFor = (length: number, tools: number): number => {
    const stem = 'abcdefghij'.repeat(length / 10).slice(0, length - 40);
    // A bucket too deep to run dry and a frozen clock: the per-lookup bound is under test, and what
    // the bucket lost is exactly what the lookups spent.
    const capacity = 1e12;
    const budget = new FuzzyBudget({ capacity, now: () => 0 });
    const resolver = resolverFor(Array.from({ length: tools }, (_, i) => stem + String(i).padStart(4, '0').repeat(10)), {}, budget);
    for (let i = 0; i < 10; i++) t.equal(resolver(stem + 'kq'.repeat(19) + 'k' + String(i)), null);
    return capacity - budget.available();
  };
  const few = cellsFor(240, 8);
  const many = cellsFor(240, 512);
  t.ok(few > 0, `${few} cells for 10 lookups over 8 names`);
  t.ok(many <= 10 * LOOKUP_CELLS, `${many} cells for 10 lookups over 512 names (cap ${LOOKUP_CELLS} a lookup)`);
  t.ok(many > few, 'more names, more work, up to the cap');
});

t.test('an empty bucket degrades fuzzy matching to "not declared", exact matching still works', async (t) => {
  const drained = new FuzzyBudget({ capacity: 0 });
  const resolver = createNameResolver(['search_procedures', 'get_weather']);
  t.equal(resolver('search_procedurez', drained), null);
  t.same(resolver('get_weather', drained), { name: 'get_weather', how: 'exact' });
  t.same(resolver('search_procedurex', new FuzzyBudget()), { name: 'search_procedures', how: 'fuzzy' });
});

// The resolver (and its answer cache) is shared by every tenant sending the same tool set; only
// the budgets are per tenant. A tenant that spends its budget on near misses must not make
// another tenant's lookups fail, nor leave a cached "not declared" behind for them.
t.test("one tenant draining its fuzzy budget leaves another tenant's matches intact, in the same instant", async (t) => {
  const clock = { now: 5_000 }; // frozen: nothing refills during the test
  const tenantA = new FuzzyBudget({ now: () => clock.now });
  const tenantB = new FuzzyBudget({ now: () => clock.now });
  // Long declared names with a shared stem: each near miss costs many cells against each of them.
  const stem = 'abcdefghij'.repeat(20);
  const long = Array.from({ length: 64 }, (_, i) => stem + String(i).padStart(4, '0').repeat(10));
  const resolver = createNameResolver([...long, 'search_procedures', 'get_weather']);
  let misses = 0;
  for (; tenantA.available() >= LOOKUP_CELLS && misses < 10_000; misses++) resolver(stem + 'kq'.repeat(19) + 'k' + String(misses), tenantA);
  // The last cells go to short near misses (a few cells a row), until not even one row is left.
  for (let i = 0; tenantA.available() >= 5 && i < 100_000; i++, misses++) resolver(`searchprocedurqq${i}`, tenantA);
  t.ok(tenantA.available() < 5, `tenant A drained its bucket with ${misses} near misses`);
  t.equal(resolver('search_procedurex', tenantA), null, 'A is out of budget: no guess');
  t.same(resolver('search_procedurex', tenantB), { name: 'search_procedures', how: 'fuzzy' }, "B's lookup of the same name still matches");
  t.ok(tenantB.available() < new FuzzyBudget({ now: () => clock.now }).available(), 'B paid from its own bucket');
  t.same(resolver('search_procedurex', tenantA), { name: 'search_procedures', how: 'fuzzy' }, "B's answer is cached: pure, and free for A too");
  t.equal(resolver('get_wether', tenantA), null, 'A is still out of budget for new names');
  clock.now += 1_000;
  t.same(resolver('get_wether', tenantA), { name: 'get_weather', how: 'fuzzy' }, 'the busy answer was not cached: A matches once refilled');
});
