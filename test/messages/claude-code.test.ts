import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { startGeminiEmulator } from '../emulators/gemini-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { eventProblems, messageProblems } from './shapes.js';

// Request bodies shaped like Claude Code's: system blocks with cache_control (the billing-header
// block first), many tools with mcp__ names and one longer than any upstream accepts, extended
// thinking, metadata.user_id, a system-role reminder between turns, the key in x-api-key with
// anthropic-version and anthropic-beta headers. Answered on an OpenAI-compatible emulator (which
// refuses unknown fields and invalid names) and on Gemini, through the official SDK.

const LONG = 'mcp__claude_in_chrome_extension_server__take_screenshot_of_the_current_browser_tab_now';
const CACHE = { type: 'ephemeral' as const };

function tools(): Anthropic.Tool[] {
  const list: Anthropic.Tool[] = [];
  for (const name of ['Task', 'Bash', 'Glob', 'Grep', 'LS', 'Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'WebFetch', 'TodoWrite', 'WebSearch', 'BashOutput', 'KillBash']) {
    list.push({ name, description: `The ${name} tool.`, input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' } });
  }
  for (const name of ['mcp__github__create_issue', 'mcp__github__search_code', 'mcp__ide__getDiagnostics', 'mcp__ide__executeCode', LONG]) {
    list.push({ name, description: `MCP tool ${name}`, input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } });
  }
  list[list.length - 1] = { ...list[list.length - 1], cache_control: CACHE };
  return list;
}

function body(model: string, prompt: string): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: 16000, // the SDK refuses more without streaming
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.37; cc_entrypoint=cli;' },
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: CACHE },
      { type: 'text', text: 'Use the tools to answer. Prefer MCP tools for browser work.', cache_control: CACHE },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>This is a reminder.</system-reminder>' }, { type: 'text', text: prompt, cache_control: CACHE }] },
    ],
    tools: tools(),
    tool_choice: { type: 'auto' },
    thinking: { type: 'enabled', budget_tokens: 10000 },
    metadata: { user_id: 'user_abc123_account_def_session_789' },
  };
}

/** An upstream that thinks, then calls the long-named tool by the name it was sent (the upstream's own). */
const thinkingScript: Script = (request) => {
  const declared = (request.tools ?? []).map((tool) => tool.function.name);
  const last = request.messages.filter((m) => m.role !== 'system').pop();
  if (last?.role === 'tool') return { text: `Done: ${String(last.content)}` };
  const name = declared.find((n) => n.startsWith('mcp__claude_in_chrome')) ?? 'missing';
  return { toolCalls: [{ name, arguments: { query: 'current tab' } }] };
};

t.test('Claude Code request bodies', async (t) => {
  const oa = await startOpenAIEmulator({ apiKey: 'sk-up', script: thinkingScript });
  const gemini = await startGeminiEmulator();
  const keys = 'auth:\n  keys:\n    - name: dev\n      key: sk-gw-dev-0123456789\n';
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: oa.url, apiKey: 'sk-up' }, gem: { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: gemini.apiKey } }, keys), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await oa.close();
    await gemini.close();
  });
  const client = new Anthropic({
    baseURL: gw.url,
    apiKey: 'sk-gw-dev-0123456789',
    maxRetries: 0,
    defaultHeaders: { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14,some-future-beta-2031-01-01' },
  });

  for (const stream of [false, true]) {
    const request = body('up/qwen3-coder', 'Take a screenshot of the browser.');
    const message = stream ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
    t.same(messageProblems(message), [], `stream=${stream}: a valid Message`);
    const use = message.content.find((block) => block.type === 'tool_use');
    t.equal(use?.type === 'tool_use' ? use.name : undefined, LONG, `stream=${stream}: the long MCP name comes back as declared`);
    t.equal(message.stop_reason, 'tool_use');

    const sent = oa.requests[oa.requests.length - 1].body;
    t.ok(sent.tools.every((tool: any) => /^[a-zA-Z0-9_-]{1,64}$/.test(tool.function.name)), 'every name the upstream got is valid there');
    t.ok(sent.tools.some((tool: any) => tool.function.name === 'mcp__github__create_issue'), 'valid mcp__ names go up unchanged');
    t.equal(sent.tools.length, 20);
    t.equal(sent.user, 'user_abc123_account_def_session_789', 'metadata.user_id → user');
    t.equal(sent.reasoning_effort, 'medium', 'thinking budget 10000 → reasoning_effort medium');
    t.notOk(JSON.stringify(sent).includes('cache_control'), 'cache_control is not sent to a chat upstream');
    t.equal(sent.messages[0].role, 'system');
    t.match(sent.messages[0].content, /Claude Code.*\n\nUse the tools/s, 'system blocks joined');
    t.equal(sent.max_tokens, 16000);

    // The next turn, with Claude Code's thinking block (signature included) and a system-role reminder.
    const next: Anthropic.MessageCreateParamsNonStreaming = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'I should take a screenshot.', signature: 'c2lnbmF0dXJl' }, ...message.content.filter((block) => block.type === 'tool_use')] as any },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.type === 'tool_use' ? use.id : '', content: [{ type: 'text', text: 'screenshot taken' }] }] },
        { role: 'system', content: '<total_tokens>5000000 tokens left</total_tokens>' } as any,
      ],
    };
    const final = await client.messages.create(next);
    t.same(messageProblems(final), []);
    t.equal(final.stop_reason, 'end_turn');
    t.match(final.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), /screenshot taken/);
    const back = oa.requests[oa.requests.length - 1].body;
    const assistant = back.messages.find((m: any) => m.role === 'assistant');
    t.match(assistant.tool_calls[0].function.name, /^mcp__claude_in_chrome/, 'the call goes back under the upstream name');
    t.equal(back.messages[back.messages.length - 1].role, 'system', 'the reminder stays where it was sent');
  }

  // The beta surface Claude Code uses: POST /v1/messages?beta=true with `betas` as anthropic-beta.
  const beta = await client.beta.messages.create({ ...body('up/qwen3-coder', 'Take a screenshot.'), betas: ['interleaved-thinking-2025-05-14', 'context-management-2025-06-27'] });
  t.equal(beta.stop_reason, 'tool_use', 'the beta endpoint answers the same');
  t.match(oa.requests.length, Number, 'it reached the upstream');

  // Gemini: the long name encoded for its rule, the call forced with tool_choice {type: tool}.
  const events: Anthropic.RawMessageStreamEvent[] = [];
  const stream = await client.messages.create({ ...body('gem/gemini-2.5-flash', 'Weather in Paris'), tool_choice: { type: 'tool', name: LONG }, stream: true });
  for await (const event of stream) events.push(event);
  t.same(eventProblems(events), [], 'Gemini stream events');
  const start = events.find((event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use');
  t.equal(start?.type === 'content_block_start' && start.content_block.type === 'tool_use' ? start.content_block.name : undefined, LONG);
  const config = gemini.requests[gemini.requests.length - 1].body.toolConfig.functionCallingConfig;
  t.equal(config.mode, 'ANY', 'tool_choice tool → mode ANY');
  t.ok(config.allowedFunctionNames[0].length <= 64 && config.allowedFunctionNames[0] !== LONG, 'the forced name is the encoded one');
});

t.test('x-api-key, Bearer, and a missing key', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'auth:\n  keys:\n    - name: dev\n      key: sk-gw-dev-0123456789\n'), logLevel: 'warn' });
  t.teardown(() => gw.close());
  const payload = JSON.stringify({ model: 'simulator/weather', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  const post = (headers: Record<string, string>) => fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: payload });
  t.equal((await post({ 'x-api-key': 'sk-gw-dev-0123456789' })).status, 200, 'x-api-key');
  t.equal((await post({ authorization: 'Bearer sk-gw-dev-0123456789' })).status, 200, 'Authorization: Bearer');
  const wrong = await post({ 'x-api-key': 'sk-wrong' });
  t.equal(wrong.status, 401);
  const error: any = await wrong.json();
  t.equal(error.type, 'error');
  t.equal(error.error.type, 'authentication_error');
  t.type(error.error.message, 'string');
  t.notOk(JSON.stringify(error).includes('sk-wrong'), 'the key is not echoed');
  t.equal((await post({})).status, 401, 'no key');
  // Other routes keep OpenAI's shape.
  const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-api-key': 'sk-wrong', 'content-type': 'application/json' }, body: '{}' });
  t.type(((await chat.json()) as any).error.code, 'string', 'chat errors stay OpenAI-shaped');
});
