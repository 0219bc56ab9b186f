import t from 'tap';
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
