import t from 'tap';
import { settledHeap } from '../helpers/heap.js';
import type { RepairBudget } from '../../src/util/bounded-json.js';
import { fixArguments } from '../../src/toolcalls/arguments.js';
import * as validators from '../../src/toolcalls/schema-validators.js';

// Distinct schemas in a loop (a client's MCP tool list that changes per request, or an attacker):
// what the validator cache and Ajv keep must stop growing once the cache is full. Sizes are
// compared, never timed.

const unlimited = { takeCompile: () => true } as unknown as RepairBudget;
let next = 0;
/** A new schema text each call, with a pattern and a format (both kept in Ajv's scope). */
const distinctSchema = (): Record<string, unknown> => {
  const i = next++;
  return { type: 'object', properties: { [`q${i}`]: { type: 'string', pattern: `^a${i}` }, d: { type: 'string', format: 'date' } }, required: [`q${i}`] };
};
// The process's cache holds up to 2,000 validators; a smaller one of the same class fills sooner.
const limits = { maxKept: 300, maxKeptBytes: validators.MAX_KEPT_VALIDATOR_BYTES, generationCompiles: 64 };
const cache = new validators.SchemaValidatorCache(limits);
const compileDistinct = (count: number): void => {
  for (let i = 0; i < count; i++) cache.lookup(distinctSchema(), unlimited);
};

t.test('distinct schemas: heap stops growing once the cache is full', async (t) => {
  const start = await settledHeap();
  compileDistinct(limits.maxKept); // fills the cache
  const full = await settledHeap();
  compileDistinct(2 * limits.maxKept); // twice as many again: all evict
  const after = await settledHeap();
  const filling = full - start;
  const beyond = after - full;
  t.ok(filling > 0, `filling took ${(filling / 1e6).toFixed(1)} MB`);
  // Under c8 V8 keeps every compiled script for coverage (ajv compiles with new Function): ~3 MB more.
  const allowed = process.env.NODE_V8_COVERAGE ? filling * 0.75 : filling / 4;
  t.ok(beyond < allowed, `twice as many schemas again added ${(beyond / 1e6).toFixed(1)} MB (filling: ${(filling / 1e6).toFixed(1)} MB)`);
});

t.test("Ajv's own cache and code scope stay bounded by one generation", async (t) => {
  compileDistinct(3 * limits.generationCompiles + 7);
  const stats = cache.stats();
  t.ok(stats.ajvCached <= 1, `Ajv's schema cache holds ${stats.ajvCached} (the meta-schema at most)`);
  t.ok(stats.ajvScopeSchemas <= limits.generationCompiles, `Ajv's scope holds ${stats.ajvScopeSchemas} schemas`);
  t.equal(stats.kept, limits.maxKept, 'the cache is full, no fuller');
});

t.test('a validator from a retired generation still validates', async (t) => {
  const schema = { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', pattern: '^x+$' } } };
  const before = cache.stats().generation;
  const compiled = cache.lookup(schema, unlimited);
  compileDistinct(limits.generationCompiles + 1);
  t.ok(cache.stats().generation > before, 'a new generation began');
  t.equal(cache.lookup(structuredClone(schema), unlimited), compiled, 'still kept, not compiled again');
  t.notOk(compiled.validate?.({ n: 1, s: 'y' }));
  t.same(compiled.validate?.errors?.map((e) => e.message), ['must match pattern "^x+$"']);
  t.ok(compiled.validate?.({ n: 1, s: 'xx' }));
});

t.test('the process cache is the one fixArguments uses, with the documented limits', async (t) => {
  const schema = { type: 'object', properties: { only_here_xyz: { type: 'integer' } } };
  const budget = { takeCompile: () => true } as unknown as RepairBudget;
  const kept = validators.schemaValidators.stats().kept;
  t.same(fixArguments('{"only_here_xyz":"5"}', schema, budget).arguments, '{"only_here_xyz":5}');
  t.equal(validators.schemaValidators.stats().kept, kept + 1);
});
