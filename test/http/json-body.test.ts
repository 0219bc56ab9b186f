import t from 'tap';
import { withCallsCounted } from '../helpers/count-calls.js';
import { parseJsonBody } from '../../src/http/json-body.js';

// Issue 14 §2: tool-call arguments are JSON inside a string, so the body's depth limit did not
// see them: 20k-deep arguments reached prompt-mode rendering and ended in a 500.
const limits = { maxDepth: 64, maxStringLength: 0 };
const deepArguments = (depth: number) => `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const body = (args: string) => JSON.stringify({ model: 'm', messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] }] });

t.test('arguments strings count against the nesting limit, with a 400 naming it', async (t) => {
  t.throws(() => parseJsonBody(body(deepArguments(20_000)), limits), { status: 400, code: 'arguments_too_deep', message: /limit of 64 levels/ });
  t.throws(() => parseJsonBody(body(deepArguments(65)), limits), { code: 'arguments_too_deep' });
  t.ok(parseJsonBody(body(deepArguments(64)), limits), 'at the limit: accepted');
  t.ok(parseJsonBody(body(`{"code": "${'['.repeat(500)}"}`), limits), 'brackets inside JSON strings do not count');
  t.ok(parseJsonBody(JSON.stringify({ notes: '['.repeat(500) }), limits), 'only `arguments` strings are read as JSON');
  const responses = JSON.stringify({ model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: deepArguments(1000) }] });
  t.throws(() => parseJsonBody(responses, limits), { code: 'arguments_too_deep' }, 'Responses function_call items too');
});

// The walk reads each object's keys with for-in (no array of keys per object, V8's enum cache).
t.test('the body walk builds no key arrays', async (t) => {
  const text = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }] });
  const { result, calls } = withCallsCounted(Object, 'keys', () => parseJsonBody(text, { maxDepth: 64, maxStringLength: 100 }));
  t.ok(result);
  t.equal(calls, 0);
});

// for-in also walks enumerable keys inherited from Object.prototype: a polluted prototype must not
// change what is accepted or refused.
t.test('the same verdicts with an enumerable key on Object.prototype', async (t) => {
  const limits = { maxDepth: 4, maxStringLength: 12 };
  const cases = ['{"a":"short"}', '{"a":"far too long a string"}', '{"__proto__":1}', '{"constructor":{"prototype":1}}', '{"a":{"b":{"c":{"d":{}}}}}', '[[["x"]]]', '{"arguments":"[[[[[1]]]]]"}'];
  const verdict = (text: string): string => {
    try {
      parseJsonBody(text, limits);
      return 'ok';
    } catch (error) {
      return `${(error as { code?: string }).code}: ${(error as Error).message}`;
    }
  };
  const clean = cases.map(verdict);
  t.same(
    clean.map((line) => line.replace(/:.*/, '')),
    ['ok', 'string_above_max_length', 'invalid_body', 'invalid_body', 'invalid_body', 'ok', 'arguments_too_deep'],
  );
  Object.defineProperty(Object.prototype, 'polluted', { value: 'a string longer than ten', enumerable: true, configurable: true });
  try {
    t.same(cases.map(verdict), clean);
  } finally {
    delete (Object.prototype as { polluted?: unknown }).polluted;
  }
});
