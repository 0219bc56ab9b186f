import t from 'tap';
import { withCallsCounted } from '../helpers/count-calls.js';
import { entryBytes } from '../../src/ledger/entry-bytes.js';
import { approxBytes } from '../../src/state/budget.js';

// entryBytes is approxBytes without its allocations: the same number for every value, whatever
// its shape (a seeded family of JSON-like values, ledger-entry shaped and not).

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const STRINGS = ['', 'a', 'call_abc123', '{"city":"Paris"}', 'température 21 °C', 'emoji 🙂 two-byte', '東京', 'x'.repeat(300)];

function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 5 || pick < 0.3) {
    const scalar = Math.floor(next() * 6);
    if (scalar === 0) return STRINGS[Math.floor(next() * STRINGS.length)];
    if (scalar === 1) return Math.floor(next() * 1000);
    if (scalar === 2) return next() < 0.5;
    if (scalar === 3) return null;
    if (scalar === 4) return undefined;
    return STRINGS[Math.floor(next() * STRINGS.length)] + String(Math.floor(next() * 100));
  }
  if (pick < 0.6) return Array.from({ length: Math.floor(next() * 5) }, () => value(next, depth + 1));
  const object: Record<string, unknown> = {};
  const fields = Math.floor(next() * 6);
  for (let i = 0; i < fields; i++) object[`${STRINGS[Math.floor(next() * STRINGS.length)].slice(0, 12)}${i}`] = value(next, depth + 1);
  return object;
}

function nested(depth: number): unknown {
  let inner: unknown = { leaf: 'deep °' };
  for (let i = 0; i < depth; i++) inner = i % 2 === 0 ? { level: i, inner } : [inner, 'x'];
  return inner;
}

t.test('the same number as approxBytes on a seeded family of values', async (t) => {
  const next = random(17);
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const sample = value(next, 0);
    if (entryBytes(sample) !== approxBytes(sample)) t.fail(`differs on ${JSON.stringify(sample)}`);
    compared++;
  }
  t.equal(compared, 2000);
});

t.test('ledger entries: the message, its calls, call metadata', async (t) => {
  const entry = {
    message: {
      role: 'assistant',
      content: 'Let me check the weather in Zürich.',
      refusal: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    },
    prefixFingerprint: 'f'.repeat(40),
    provider: 'openai',
    model: 'gpt-4o',
    createdAt: 1_700_000_000_000,
    callMeta: { call_1: { thoughtSignature: 'sig==' } },
  };
  t.equal(entryBytes(entry), approxBytes(entry));
  t.ok(entryBytes(entry) > 0);
});

t.test('nesting deeper than the walk goes to approxBytes: same number, no stack overflow', async (t) => {
  for (const depth of [15, 16, 17, 40, 20_000]) {
    const sample = { message: { role: 'assistant', content: null, annotations: nested(depth) } };
    t.equal(entryBytes(sample), approxBytes(sample), `depth ${depth}`);
  }
});

// Keys are walked with for-in (no key array per object): inherited enumerable keys (a polluted
// Object.prototype, a class's prototype) and null-prototype objects count as approxBytes counts them.
t.test('for-in walk: no key arrays, own keys only', async (t) => {
  class WithProto {
    own = 'x';
  }
  Object.defineProperty(WithProto.prototype, 'inheritedField', { value: 'yyyy', enumerable: true });
  const bare = Object.create(null) as Record<string, unknown>;
  bare.k = 'v';
  const sample = { message: { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] }, odd: new WithProto(), bare };
  const { result: counted, calls } = withCallsCounted(Object, 'keys', () => entryBytes(sample));
  t.equal(calls, 0, 'no Object.keys');
  t.equal(counted, approxBytes(sample));
  Object.defineProperty(Object.prototype, 'polluted', { value: 'zzzzzzzz', enumerable: true, configurable: true });
  try {
    t.equal(entryBytes(sample), approxBytes(sample), 'with an enumerable key on Object.prototype');
  } finally {
    delete (Object.prototype as { polluted?: unknown }).polluted;
  }
});
