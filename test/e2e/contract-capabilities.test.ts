import t from 'tap';
import type { ChatRequest } from '../../src/api/chat-types.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { isReask, TOOLS } from '../helpers/contract-rows.js';

// An upstream that rejects `parallel_tool_calls` (as OpenAI's reasoning models do) and then makes
// two calls: the field is learned as rejected, the call goes again without it, the answer is
// checked against parallel_tool_calls: false anyway and re-asked; the next request is sent
// without the field from the start.

const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) => {
    // vLLM without a named-choice backend: no code, no param, the words only.
    if (body.model === 'vllm' && body.tool_choice === 'required') return { error: { status: 400, body: { object: 'error', message: 'tool_choice "required" is not supported', type: 'BadRequestError', param: null, code: 400 } } };
    if (body.model === 'vllm') return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
    if ('parallel_tool_calls' in body) {
      return { error: { status: 400, body: { error: { message: "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.", type: 'invalid_request_error', param: 'parallel_tool_calls', code: 'unsupported_parameter' } } } };
    }
    if (isReask(body)) return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
    return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Oslo' } }] };
  },
});
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }) });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const ask = async () => {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/reasoner', messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }], tools: TOOLS, parallel_tool_calls: false }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

t.test('a rejected field is learned; the contract still holds the answer to it', async (t) => {
  const first = await ask();
  t.equal(first.status, 200);
  t.equal(first.body.choices[0].message.tool_calls.length, 1, 'one call, as parallel_tool_calls: false asks');
  t.same(upstream.requests.map((r) => 'parallel_tool_calls' in r.body), [true, false, false], 'rejected once, then sent without it (re-ask included)');
  t.same(upstream.requests.map((r) => isReask(r.body)), [false, false, true]);
  t.match(gw.logs.join('\n'), /upstream rejects a contract field/);

  const before = upstream.requests.length;
  const second = await ask();
  t.equal(second.status, 200);
  t.notOk('parallel_tool_calls' in upstream.requests[before].body, 'learned: the next request goes without it from the start');
  const capabilities = gw.gateway.upstream.contractCapabilities;
  const probe = { model: 'reasoner', messages: [], parallel_tool_calls: false, tool_choice: 'required' } as unknown as ChatRequest;
  t.same(capabilities.relaxed('up/reasoner', probe), { model: 'reasoner', messages: [], tool_choice: 'required' }, 'learned for the anonymous client that sent the request: that field only');
  t.equal(capabilities.relaxed('up/reasoner', probe, 'another-key-scope'), probe, 'not for another key');
});

t.test("the client's own everyday words (\"not supported\") do not stop learning the upstream's refusal", async (t) => {
  const before = upstream.requests.length;
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/vllm', messages: [{ role: 'user', content: 'My old card is not supported here. Weather in Paris?' }], tools: TOOLS, tool_choice: 'required' }),
  });
  t.equal(response.status, 200);
  const sent = upstream.requests.slice(before);
  t.same(sent.map((r) => r.body.tool_choice), ['required', undefined], 'refused once, then sent without it');
});
