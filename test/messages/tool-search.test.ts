import t from 'tap';
import { toChatRequest } from '../../src/messages/to-chat.js';
import type { MessagesHistory } from '../../src/messages/repair/types.js';
import type { MessagesRequest, ToolParam } from '../../src/messages/types.js';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Tool search on any upstream, with the tools and turns Claude Code 2.1.332 sends when
// ENABLE_TOOL_SEARCH is on (recorded from test/agents' claude/native/search run): deferred tools are
// held back until a tool_reference in the history makes them available, the placeholder never goes
// up, and the ToolSearch result reads as text.

const schema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
const TOOLS: ToolParam[] = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
  { name: 'ToolSearch', description: 'Fetches full schema definitions for deferred tools so they can be called.', input_schema: schema },
  { name: 'WebFetch', description: 'Fetches a URL.', input_schema: { type: 'object', properties: { url: { type: 'string' } } }, defer_loading: true },
  { name: 'WebSearch', description: 'Searches the web.', input_schema: schema, defer_loading: true },
  { name: 'DeferredToolPlaceholder', description: 'Reserved placeholder that keeps deferred tool loading active; never call this tool.', input_schema: { type: 'object', properties: {} }, defer_loading: true },
];
const OPTIONS = { provider: 'p', target: { type: 'openai-compatible', model: 'm' } };
const ask = { role: 'user' as const, content: 'Fetch example.com' };
const search = { role: 'assistant' as const, content: [{ type: 'tool_use', id: 'call_1', name: 'ToolSearch', input: { query: 'web fetch' } }] };
const found = (...names: string[]) => ({ role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'call_1', content: names.map((name) => ({ type: 'tool_reference', tool_name: name })), cache_control: { type: 'ephemeral' } }] });
const base: MessagesRequest = { model: 'p/m', max_tokens: 100, messages: [], tools: TOOLS };
const chatOf = (history: MessagesHistory, request: Partial<MessagesRequest> = {}, options: Parameters<typeof toChatRequest>[2] = OPTIONS) => toChatRequest({ ...base, ...request }, history, options);
const names = (chat: ReturnType<typeof toChatRequest>) => ((chat.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

t.test('deferred tools wait for a tool_reference; the placeholder never goes up', async (t) => {
  t.same(names(chatOf({ messages: [ask] })), ['Read', 'ToolSearch'], 'first turn: only the tools not deferred');

  const chat = chatOf({ messages: [ask, search, found('WebFetch')] });
  t.same(names(chat), ['Read', 'ToolSearch', 'WebFetch'], 'the referenced tool is declared from then on');
  t.same(chat.messages.at(-1), { role: 'tool', tool_call_id: 'call_1', content: 'Tool WebFetch is now available.' }, 'the reference reads as text');
  t.notOk(JSON.stringify(chat).includes('defer_loading'), 'defer_loading is not sent to a chat upstream');

  const both = chatOf({ messages: [ask, search, found('WebFetch', 'WebSearch', 'NoSuchTool')] });
  t.same(names(both), ['Read', 'ToolSearch', 'WebFetch', 'WebSearch']);
  t.equal(both.messages.at(-1)?.content, 'Tool WebFetch is now available.\nTool WebSearch is now available.\nTool NoSuchTool is not among the declared tools.');

  // Later turns: the reference stays in the history, and so does the tool; a call to it counts too
  // (a history whose ToolSearch result was compacted away).
  const called = { role: 'assistant' as const, content: [{ type: 'tool_use', id: 'call_2', name: 'WebSearch', input: { query: 'x' } }] };
  const result = { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'call_2', content: 'results' }] };
  t.same(names(chatOf({ messages: [ask, called, result] })), ['Read', 'ToolSearch', 'WebSearch'], 'a tool the history called is declared');
  t.same(names(chatOf({ messages: [ask] }, { tool_choice: { type: 'tool', name: 'WebFetch' } })), ['Read', 'ToolSearch', 'WebFetch'], 'a tool tool_choice names is declared');
  t.same(names(chatOf({ messages: [{ role: 'user', content: [{ type: 'tool_reference', tool_name: 'WebSearch' }] }] })), ['Read', 'ToolSearch', 'WebSearch'], 'a reference outside a tool_result counts');
});

t.test("Anthropic's server-side tool search: every deferred tool declared, said in a warning", async (t) => {
  const warnings = new Map<string, number>();
  const tools: ToolParam[] = [{ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }, ...TOOLS.filter((tool) => tool.name !== 'ToolSearch')];
  const chat = chatOf({ messages: [ask] }, { tools }, { ...OPTIONS, warnings });
  t.same(names(chat), ['Read', 'WebFetch', 'WebSearch', 'DeferredToolPlaceholder']);
  t.same([...warnings], [['tool_search_not_run', 1]]);
  t.same(names(chatOf({ messages: [ask] }, { tools: [{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }, TOOLS[2]] })), ['WebFetch'], 'bm25 too');
});

t.test('through the gateway: the ToolSearch turn is answered, the upstream sees the tools it may call', async (t) => {
  const script: Script = (request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { toolCalls: [{ name: 'WebFetch', arguments: { url: 'https://example.com' } }] };
    return { toolCalls: [{ name: 'ToolSearch', arguments: { query: 'web fetch' } }] };
  };
  const up = await startOpenAIEmulator({ apiKey: 'sk-up', script });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const post = async (messages: unknown[]) => {
    const response = await fetch(`${gw.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'advanced-tool-use-2025-11-20,mid-conversation-tool-changes-2026-07-01' },
      body: JSON.stringify({ model: 'up/m', max_tokens: 1000, tools: TOOLS, messages }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const first = await post([ask]);
  t.equal(first.status, 200);
  t.equal(first.body.content[0].name, 'ToolSearch');
  t.same(up.requests.at(-1)?.body.tools.map((tool: any) => tool.function.name), ['Read', 'ToolSearch']);

  const second = await post([ask, { role: 'assistant', content: first.body.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: first.body.content[0].id, content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] }]);
  t.equal(second.status, 200, 'the tool_reference turn is answered, not refused');
  t.equal(second.body.content[0].name, 'WebFetch');
  t.same(second.body.content[0].input, { url: 'https://example.com' });
  const sent = up.requests.at(-1)?.body;
  t.same(sent.tools.map((tool: any) => tool.function.name), ['Read', 'ToolSearch', 'WebFetch']);
  t.equal(sent.messages.at(-1).content, 'Tool WebFetch is now available.');
});
