import t from 'tap';
import type { ChatRequest } from '../../src/api/chat-types.js';
import { ContractCapabilities, rejectedContractField, withoutField } from '../../src/contract/capabilities.js';
import { errors } from '../../src/errors.js';

// Which contract field an upstream's 400 rejects, in the wordings upstreams use, and the request without it.

const request = (fields: Record<string, unknown>): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [], ...fields }) as ChatRequest;
const status400 = (message: string, code?: string, param?: string) => errors.upstreamStatus(400, message, 'invalid_request_error', code ?? null, param ?? null);

t.test('the wordings of a rejected field', async (t) => {
  const parallel = request({ parallel_tool_calls: false });
  t.equal(rejectedContractField(status400("Unsupported parameter: 'parallel_tool_calls' is not supported with this model.", 'unsupported_parameter', 'parallel_tool_calls'), parallel), 'parallel_tool_calls', 'OpenAI');
  t.equal(rejectedContractField(status400('[{"type":"extra_forbidden","loc":["body","parallel_tool_calls"],"msg":"Extra inputs are not permitted"}]'), parallel), 'parallel_tool_calls', 'pydantic');
  t.equal(rejectedContractField(status400('tool_choice "required" is not supported'), request({ tool_choice: 'required' })), 'tool_choice:required', 'vLLM');
  t.equal(rejectedContractField(status400('Unknown parameter: tool_choice'), request({ tool_choice: { type: 'function', function: { name: 'f' } } })), 'tool_choice:function');
  t.equal(rejectedContractField(status400('Invalid value for tool_choice: must name a declared tool'), request({ tool_choice: 'required' })), undefined, 'the request\'s own mistake is not learned');
  t.equal(rejectedContractField(status400("Unsupported parameter: 'parallel_tool_calls'"), request({})), undefined, 'a field the request did not send');
  t.equal(rejectedContractField(errors.upstreamStatus(500, "parallel_tool_calls is not supported"), parallel), undefined, 'only a 400');
});

t.test('withoutField drops only what was rejected', async (t) => {
  t.notOk('parallel_tool_calls' in withoutField(request({ parallel_tool_calls: false, tool_choice: 'required' }), 'parallel_tool_calls'));
  t.equal(withoutField(request({ tool_choice: 'required' }), 'tool_choice:required').tool_choice, undefined);
  t.equal(withoutField(request({ tool_choice: 'none' }), 'tool_choice:required').tool_choice, 'none', 'another value stays');
});

t.test('learned per model, bounded', async (t) => {
  const table = new ContractCapabilities({ maxModels: 2, ttlMs: 60_000 });
  const body = request({ parallel_tool_calls: false, tool_choice: 'required' });
  t.equal(table.relaxed('p/a', body), body, 'nothing learned: the same request');
  table.learn('p/a', 'parallel_tool_calls');
  t.notOk('parallel_tool_calls' in table.relaxed('p/a', body));
  t.equal(table.relaxed('p/b', body), body, 'other models unaffected');
  table.learn('p/b', 'tool_choice:required');
  table.learn('p/c', 'tool_choice:required');
  t.same(['p/a', 'p/b', 'p/c'].filter((model) => table.relaxed(model, body) !== body), ['p/b', 'p/c'], 'maxModels: the oldest forgotten');
});

t.test('learned for the gateway key whose request taught it', async (t) => {
  const table = new ContractCapabilities({ maxModels: 8, ttlMs: 60_000 });
  const body = request({ parallel_tool_calls: false });
  table.learn('p/a', 'parallel_tool_calls', 'scope-a');
  t.notOk('parallel_tool_calls' in table.relaxed('p/a', body, 'scope-a'));
  t.equal(table.relaxed('p/a', body, 'scope-b'), body, "another key's requests keep the field");
  t.equal(table.relaxed('p/a', body), body, 'and the anonymous client too');
});

t.test('an everyday phrase in the client\'s own text does not stop learning the upstream\'s refusal', async (t) => {
  const chatty = request({ tool_choice: 'required', messages: [{ role: 'user', content: 'My bank says this card is not supported. What now?' }] });
  t.equal(rejectedContractField(status400('tool_choice "required" is not supported'), chatty), 'tool_choice:required', 'vLLM');
  const parallel = request({ parallel_tool_calls: false, messages: [{ role: 'user', content: 'Unsupported parameter values are common, right?' }] });
  t.equal(rejectedContractField(status400("Unsupported parameter: 'parallel_tool_calls' is not supported with this model."), parallel), 'parallel_tool_calls', 'OpenAI');
});

t.test("rejection words the client sent itself are not the upstream's", async (t) => {
  // An upstream quoting the request: the client's message holds the words and the field's name.
  const echoed = request({ parallel_tool_calls: false, messages: [{ role: 'user', content: 'say: parallel_tool_calls is not supported' }] });
  t.equal(rejectedContractField(status400("Bad request: 'say: parallel_tool_calls is not supported'"), echoed), undefined, 'echoed words');
  t.equal(rejectedContractField(status400("Unsupported parameter: 'parallel_tool_calls'", 'unsupported_parameter', 'parallel_tool_calls'), echoed), 'parallel_tool_calls', "the upstream's own code still counts");
});
