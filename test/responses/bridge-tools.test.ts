import t, { type Test } from 'tap';
import { bridgeToolChoice, bridgeTools, customInputOf, patternOf } from '../../src/responses/bridge-tools.js';
import type { ResponseTool } from '../../src/api/responses-types.js';
import { startOpenAIEmulator, type Reply } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { validateSchema, withoutOpenAINulls } from '../helpers/openapi.js';
import { startResponsesEmulator } from './emulator-responses.js';

// Every Responses tool type on the chat bridge (docs/responses.md, "Tool types on the bridge"):
// namespace tools flattened, custom tools emulated as one-string functions (a regex grammar checked by
// the contract), tools only OpenAI can run left out with a warning; native upstreams get them as sent.

const fn = (name: string, extra: Record<string, unknown> = {}): ResponseTool => ({ type: 'function', name, parameters: { type: 'object', properties: { q: { type: 'string' } } }, ...extra });
const LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';

/** Codex's default tools, an MCP server's namespace, a freeform apply_patch and a regex tool. */
const CODEX_TOOLS: ResponseTool[] = [
  fn('exec_command'),
  { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [fn('spawn_agent'), fn('wait_agent')] },
  { type: 'namespace', name: 'mcp__tg', description: 'MCP.', tools: [fn('tg_stamp')] },
  { type: 'web_search', external_web_access: true },
  { type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: LARK } },
  { type: 'custom', name: 'ident', description: 'An identifier.', format: { type: 'grammar', syntax: 'regex', definition: '[a-z]+' } },
];

t.test('bridgeTools: flattened, emulated, left out', async (t) => {
  const bridged = bridgeTools(CODEX_TOOLS, 'hf');
  t.same(bridged.tools.map((tool) => tool.function.name), ['exec_command', 'multi_agent_v1__spawn_agent', 'multi_agent_v1__wait_agent', 'mcp__tg__tg_stamp', 'apply_patch', 'ident']);
  t.same(bridged.byChatName.get('multi_agent_v1__spawn_agent'), { kind: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' });
  t.same(bridged.byChatName.get('apply_patch'), { kind: 'custom', name: 'apply_patch' });
  t.same(bridged.findings.map((f) => [f.kind, f.index, f.advisory]), [['hosted_tool_omitted', 3, true]]);
  t.match(bridged.findings[0].detail, /tools\[3\]: a 'web_search' tool/);
  const patch = bridged.tools[4].function;
  t.same(patch.parameters, { type: 'object', properties: { input: { type: 'string', description: 'The raw input of the tool, as plain text (not JSON).' } }, required: ['input'], additionalProperties: false }, 'lark: not checked, no pattern');
  t.match(patch.description, /Edit files\.\n\nThe `input` must follow this lark grammar:\nstart: begin_patch/);
  t.equal((bridged.tools[5].function.parameters as any).properties.input.pattern, '^(?:[a-z]+)$', 'regex: a full-match pattern');
  t.equal(bridged.chatName('spawn_agent', 'multi_agent_v1'), 'multi_agent_v1__spawn_agent');
  t.equal(bridged.chatName('exec_command'), 'exec_command');
  t.equal(bridged.chatName('gone', 'old_ns'), 'old_ns__gone', 'an undeclared one is joined the same way');
});

t.test('names in different namespaces, or equal to a declared name, never collide', async (t) => {
  const bridged = bridgeTools([
    { type: 'namespace', name: 'a', description: '', tools: [fn('b__c')] },
    { type: 'namespace', name: 'a__b', description: '', tools: [fn('c')] },
    fn('x__y'),
    { type: 'namespace', name: 'x', description: '', tools: [fn('y')] },
  ], 'hf');
  const names = bridged.tools.map((tool) => tool.function.name);
  t.equal(new Set(names).size, 4, 'four distinct chat names');
  t.equal(names[0], 'a__b__c');
  t.match(names[1], /^a__b__c_[0-9a-f]{8}$/, 'the later one gets a hash');
  t.equal(names[2], 'x__y', "the client's own top-level name stays");
  t.match(names[3], /^x__y_[0-9a-f]{8}$/);
  t.same(bridged.byChatName.get(names[1]), { kind: 'function', name: 'c', namespace: 'a__b' });
  t.equal(bridged.chatName('c', 'a__b'), names[1], 'a history call maps to the same name');
});

t.test('tool_choice: custom and namespaced tools by their chat name; a left-out tool is a 400', async (t) => {
  const bridged = bridgeTools(CODEX_TOOLS, 'hf');
  t.same(bridgeToolChoice({ type: 'custom', name: 'apply_patch' }, bridged, 'hf'), { type: 'function', function: { name: 'apply_patch' } });
  t.same(bridgeToolChoice({ type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' }, bridged, 'hf'), { type: 'function', function: { name: 'multi_agent_v1__spawn_agent' } });
  for (const type of ['web_search_preview', 'file_search', 'image_generation', 'code_interpreter', 'mcp', 'computer_use_preview']) {
    t.throws(() => bridgeToolChoice({ type }, bridged, 'hf'), { status: 400, code: 'unsupported_tool_type', param: 'tool_choice' }, type);
  }
});

// Issue 45: the allowed_tools list reaches chat (and the contract) under the chat names.
t.test('tool_choice allowed_tools: the list in chat words, by chat name; left-out tools left out of it', async (t) => {
  const bridged = bridgeTools(CODEX_TOOLS, 'hf');
  const choice = { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' }, { type: 'custom', name: 'apply_patch' }, { type: 'web_search_preview' }] };
  t.same(bridgeToolChoice(choice, bridged, 'hf'), {
    type: 'allowed_tools',
    allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'multi_agent_v1__spawn_agent' } }, { type: 'function', function: { name: 'apply_patch' } }] },
  });
  t.same(bridgeToolChoice({ type: 'allowed_tools', mode: 'auto', tools: [] }, bridged, 'hf'), { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } });
});

t.test('regex grammars: checked only in linear time and within the size cap', async (t) => {
  t.equal(patternOf('[0-9]{3}-[a-z]+'), '^(?:[0-9]{3}-[a-z]+)$');
  t.equal(patternOf('(a)\\1'), undefined, 'a backreference: RE2 cannot run it, not checked');
  t.equal(patternOf('a'.repeat(5000)), undefined, 'over 4 KB: not checked');
  t.equal(customInputOf('{"input":"*** Begin Patch"}'), '*** Begin Patch');
  t.equal(customInputOf('raw text'), 'raw text', 'not JSON: the text itself');
});

t.test('through the gateway: a Codex request on a bridged upstream and on a native one', async (t) => {
  let replies: Reply[] = [];
  const hf = await startOpenAIEmulator({ apiKey: 'sk-hf', script: () => replies.shift() ?? { text: 'done' } });
  const openai = await startResponsesEmulator({ apiKey: 'sk-oa' });
  const gw = await startGateway({ yaml: configFor({ hf: { baseUrl: hf.url, apiKey: 'sk-hf' }, openai: { type: 'openai', baseUrl: openai.url, apiKey: 'sk-oa' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await hf.close();
    await openai.close();
  });
  const post = async (body: Record<string, unknown>): Promise<{ status: number; headers: Headers; json: any; text: string }> => {
    const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  const model = 'hf/Qwen/Qwen3-Coder-480B-A35B-Instruct';

  t.test('namespaced calls answer as function_call items with their namespace, and map back', async (t) => {
    replies = [{ toolCalls: [{ id: 'call_ns', name: 'multi_agent_v1__spawn_agent', arguments: { q: 'sub' } }] }];
    const first = await post({ model, input: 'Spawn one.', tools: CODEX_TOOLS });
    answered(t, first);
    t.equal(first.headers.get('x-toolgate-warnings'), 'hosted_tool_omitted=1');
    const sent = hf.requests.at(-1)?.body;
    t.same(sent.tools.map((tool: any) => tool.function.name), ['exec_command', 'multi_agent_v1__spawn_agent', 'multi_agent_v1__wait_agent', 'mcp__tg__tg_stamp', 'apply_patch', 'ident'], 'no web_search upstream');
    t.match(first.json.output[0], { type: 'function_call', call_id: 'call_ns', namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: '{"q":"sub"}' });
    t.same(first.json.tools.map((tool: any) => tool.type), CODEX_TOOLS.map((tool) => tool.type), 'the response echoes every tool the client sent');

    replies = [{ text: 'spawned' }];
    const call = first.json.output[0];
    const second = await post({ model, store: false, tools: CODEX_TOOLS, input: [{ role: 'user', content: 'Spawn one.' }, { type: 'function_call', call_id: call.call_id, namespace: call.namespace, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: 'agent-1' }] });
    answered(t, second);
    const messages = hf.requests.at(-1)?.body.messages;
    t.match(messages[1], { role: 'assistant', tool_calls: [{ id: 'call_ns', function: { name: 'multi_agent_v1__spawn_agent' } }] });
    t.match(messages[2], { role: 'tool', tool_call_id: 'call_ns', content: 'agent-1' });
  });

  t.test('custom tools answer as custom_tool_call items; their outputs map back', async (t) => {
    replies = [{ toolCalls: [{ id: 'call_cp', name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** End Patch' } }] }];
    const first = await post({ model, input: 'Patch it.', tools: CODEX_TOOLS, tool_choice: { type: 'custom', name: 'apply_patch' } });
    answered(t, first);
    t.same(hf.requests.at(-1)?.body.tool_choice, { type: 'function', function: { name: 'apply_patch' } });
    const item = first.json.output[0];
    t.match(item, { type: 'custom_tool_call', call_id: 'call_cp', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch', status: 'completed' });
    t.match(item.id, /^ctc_/);
    t.notOk('arguments' in item);

    replies = [{ text: 'patched' }];
    const second = await post({ model, previous_response_id: first.json.id, tools: CODEX_TOOLS, input: [{ type: 'custom_tool_call_output', call_id: 'call_cp', output: 'Success.' }] });
    answered(t, second);
    const messages = hf.requests.at(-1)?.body.messages;
    t.match(messages.at(-2), { role: 'assistant', tool_calls: [{ id: 'call_cp', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch\\n*** End Patch"}' } }] });
    t.match(messages.at(-1), { role: 'tool', tool_call_id: 'call_cp', content: 'Success.' });
  });

  t.test('a regex grammar the input breaks goes to the contract (a re-ask)', async (t) => {
    replies = [{ toolCalls: [{ name: 'ident', arguments: { input: 'Not An Ident' } }] }, { toolCalls: [{ name: 'ident', arguments: { input: 'ident' } }] }];
    const before = hf.calls;
    const res = await post({ model, input: 'Name it.', tools: CODEX_TOOLS });
    answered(t, res);
    t.equal(hf.calls - before, 2, 'the model was asked again');
    t.match(JSON.stringify(hf.requests.at(-1)?.body.messages.at(-1)), /must match pattern/);
    t.match(res.json.output[0], { type: 'custom_tool_call', name: 'ident', input: 'ident' });
  });

  t.test('streamed: custom input events, namespaced items, every event in the spec', async (t) => {
    replies = [{ toolCalls: [{ id: 'call_s1', name: 'mcp__tg__tg_stamp', arguments: { q: 'x' } }, { id: 'call_s2', name: 'apply_patch', arguments: { input: 'PATCH' } }] }];
    const res = await post({ model, input: 'Both.', tools: CODEX_TOOLS, stream: true });
    t.equal(res.status, 200);
    const events = res.text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
    t.same(events.map((e) => e.type), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    t.match(events[5].item, { type: 'function_call', namespace: 'mcp__tg', name: 'tg_stamp', call_id: 'call_s1' });
    t.match(events[4], { name: 'tg_stamp' });
    t.match(events[6].item, { type: 'custom_tool_call', name: 'apply_patch', input: '', status: 'in_progress' });
    t.match(events[8], { input: 'PATCH' });
    t.match(events[9].item, { type: 'custom_tool_call', name: 'apply_patch', input: 'PATCH', status: 'completed' });
    t.same(events.at(-1).response.output.map((i: any) => i.type), ['function_call', 'custom_tool_call']);
    const bad = events.map((e) => ({ type: e.type, errors: validateSchema('ResponseStreamEvent', withoutOpenAINulls(e)) })).filter((e) => e.errors.length > 0);
    t.same(bad, [], 'every event matches the OpenAI spec');
  });

  t.test('a tool_choice naming a tool the bridge leaves out is a clear 400', async (t) => {
    const res = await post({ model, input: 'Search.', tools: CODEX_TOOLS, tool_choice: { type: 'web_search_preview' } });
    t.equal(res.status, 400);
    t.match(res.json.error, { type: 'invalid_request_error', param: 'tool_choice', code: 'unsupported_tool_type', message: /'web_search_preview' tool, which provider 'hf' cannot run/ });
  });

  t.test('only hosted tools: none go upstream, the request still runs', async (t) => {
    replies = [{ text: 'no search here' }];
    const res = await post({ model, input: 'Search.', tools: [{ type: 'web_search' }, { type: 'image_generation' }] });
    answered(t, res);
    t.equal(res.headers.get('x-toolgate-warnings'), 'hosted_tool_omitted=2');
    t.notOk('tools' in (hf.requests.at(-1)?.body ?? {}));
  });

  t.test('a native upstream receives the tools as sent', async (t) => {
    const res = await post({ model: 'openai/gpt-4.1', input: 'hi', tools: CODEX_TOOLS });
    answered(t, res);
    t.same(openai.requests.at(-1)?.body.tools, CODEX_TOOLS);
    t.notOk(res.headers.get('x-toolgate-warnings'));
  });
});

function answered(t: Test, res: { status: number; text: string }): void {
  if (res.status !== 200) t.comment(res.text);
  t.equal(res.status, 200, 'answered 200');
}
