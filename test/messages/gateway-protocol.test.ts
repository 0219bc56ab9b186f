import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Anthropic's gateway protocol for Claude Code, the points docs/messages.md's conformance table
// says toolgate honours: model discovery on GET /v1/models (the key as x-api-key, Anthropic's list
// shape), count_tokens, beta paths and headers, Claude Code's body fields, and an interrupted turn
// (a tool_use without its tool_result, then a new user message) repaired like any orphan call.

const KEY = 'sk-gw-dev-0123456789';
const CLAUDE_HEADERS = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': KEY, 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,advanced-tool-use-2025-11-20,effort-2025-11-24,some-future-beta-2031-01-01', 'x-claude-code-session-id': '6bbf3b44-f9ce-4642-8773-6964c5e8adaf' };

t.test("Claude Code's gateway traffic", async (t) => {
  const up = await startOpenAIEmulator({ apiKey: 'sk-up' });
  const models = 'models:\n  claude-sonnet-4-5-20250929: {provider: up, model: qwen3-coder}\n  claude-haiku-4-5-20251001: {provider: simulator, model: weather}\n';
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }, `${models}auth:\n  keys:\n    - name: dev\n      key: ${KEY}\n`), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });

  // Model discovery: GET /v1/models?limit=1000, the key as x-api-key, Anthropic's list shape.
  const listed = await fetch(`${gw.url}/v1/models?limit=1000`, { headers: { 'anthropic-version': '2023-06-01', 'x-api-key': KEY } });
  t.equal(listed.status, 200, 'x-api-key is a gateway key on /v1/models');
  const list = (await listed.json()) as any;
  t.same(list.data.map((m: any) => m.id), ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001']);
  t.match(list, { has_more: false, first_id: 'claude-sonnet-4-5-20250929', last_id: 'claude-haiku-4-5-20251001' });
  t.match(list.data[0], { type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'claude-sonnet-4-5-20250929', created_at: /^\d{4}-\d\d-\d\dT/ });
  const page = await new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 }).models.list();
  t.same(page.data.map((m) => m.id), ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'], "the SDK's models.list reads it");
  const openai = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as any;
  t.same(Object.keys(openai), ['object', 'data'], 'OpenAI clients get the OpenAI list');
  t.same(Object.keys(openai.data[0]), ['id', 'object', 'created', 'owned_by']);
  t.equal((await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': 'sk-wrong' } })).status, 401);

  // count_tokens (optional in the protocol) on its beta path.
  const count = await fetch(`${gw.url}/v1/messages/count_tokens?beta=true`, { method: 'POST', headers: CLAUDE_HEADERS, body: JSON.stringify({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'hello there' }] }) });
  t.equal(count.status, 200);
  t.type(((await count.json()) as any).input_tokens, 'number');

  // An interrupted turn: the user pressed Esc while a call was pending and typed a new message.
  const body = {
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 32000,
    thinking: { type: 'adaptive', display: 'omitted' },
    output_config: { effort: 'high' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    metadata: { user_id: JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 's' }) },
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }, { type: 'text', text: 'Never mind, what is 2+2?' }] },
    ],
  };
  const answered = await fetch(`${gw.url}/v1/messages?beta=true`, { method: 'POST', headers: CLAUDE_HEADERS, body: JSON.stringify(body) });
  t.equal(answered.status, 200, 'the strict upstream got a history it accepts');
  t.match(answered.headers.get('x-toolgate-repairs'), /missing_tool_result=1/, 'the orphan call got its result, said');
  const sent = up.requests.at(-1)?.body;
  const at = sent.messages.findIndex((m: any) => m.role === 'assistant');
  t.match(sent.messages[at + 1], { role: 'tool', tool_call_id: 'toolu_01' }, 'right after its call');
  t.match(sent.messages[at + 2], { role: 'user' }, 'then the new message');
  t.notOk('context_management' in sent || 'output_config' in sent || 'thinking' in sent, "Anthropic-only fields don't go to a chat upstream");
});
