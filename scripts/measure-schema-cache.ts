// Heap after N distinct tool schemas went through the validator cache: the cache as it is
// (src/toolcalls/schema-validators.ts) beside one shared Ajv instance with an LRU of validators in
// front (the design before it, which never freed anything inside Ajv).
//   node --expose-gc --import tsx scripts/measure-schema-cache.ts [schemas, default 6000]
import { Ajv } from 'ajv';
import { LRUCache } from 'lru-cache';
import type { RepairBudget } from '../src/util/bounded-json.js';
import { linearFormats, linearRegExp } from '../src/toolcalls/linear-regexp.js';
import { schemaValidators, validatorFor } from '../src/toolcalls/schema-validators.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const total = Number(process.argv[2] ?? 6000);
const unlimited = { takeCompile: () => true } as unknown as RepairBudget;

/** A distinct schema of about 1 KB, with a pattern and a format like real tool schemas. */
function schemaOf(i: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      [`query_${i}`]: { type: 'string', minLength: 1, maxLength: 500, description: 'What to search for, in plain words.' },
      limit: { type: 'integer', minimum: 1, maximum: 50 + (i % 7), description: 'How many results at most.' },
      site: { type: 'string', pattern: `^[a-z0-9.-]+\\.(com|org|net|io|${i})$`, description: 'Restrict to one site.' },
      since: { type: 'string', format: 'date', description: 'Only results after this date.' },
      sort: { type: 'string', enum: ['relevance', 'date', `custom_${i}`] },
      filters: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, value: { type: 'string' } }, required: ['field', 'value'] }, maxItems: 10 },
      language: { type: 'string', description: 'An ISO 639-1 code such as en, de or fr; results in other languages are dropped.' },
    },
    required: [`query_${i}`],
    additionalProperties: false,
  };
}

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

const sharedAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false, code: { regExp: linearRegExp }, formats: linearFormats() });
const sharedLru = new LRUCache<string, object>({ max: 2000 });
function viaSharedAjv(schema: Record<string, unknown>): void {
  const text = JSON.stringify(schema);
  if (!sharedLru.has(text)) sharedLru.set(text, sharedAjv.compile(schema));
}

function run(label: string, step: (schema: Record<string, unknown>) => void, offset: number): void {
  const start = heapMb();
  const marks: string[] = [];
  for (let i = 0; i < total; i++) {
    step(schemaOf(offset + i));
    if ((i + 1) % (total / 3) === 0) marks.push(`${i + 1}: +${(heapMb() - start).toFixed(1)} MB`);
  }
  console.log(`${label}: ${marks.join(', ')}`);
}

console.log(`schema text ${JSON.stringify(schemaOf(0)).length} characters; ${total} distinct schemas`);
run('one shared Ajv (before)', viaSharedAjv, 0);
console.log(`  Ajv cache entries ${(sharedAjv as unknown as { _cache: Map<unknown, unknown> })._cache.size}`);
run('schema-validators (now)', (schema) => validatorFor(schema, unlimited), 1_000_000);
console.log(`  ${JSON.stringify(schemaValidators.stats())}`);
