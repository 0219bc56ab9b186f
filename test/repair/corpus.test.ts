import t from 'tap';
import { parseChatRequest } from '../../src/api/chat-schema.js';
import type { ChatMessage } from '../../src/api/chat-types.js';
import { allPrefixFingerprints } from '../../src/ledger/fingerprint.js';
import type { LedgerSnapshot } from '../../src/ledger/types.js';
import { declaredToolsOf, repairRequest } from '../../src/repair/index.js';
import type { RepairOptions } from '../../src/repair/types.js';
import { checkChatRequest } from '../emulators/openai-rules.js';
import { ctx, deepFreeze, entry, snapshot } from './helpers.js';

// Broken (and merely unusual) histories real clients send. For every case: OpenAI's rules reject it
// before repair (or accept it, for shapes marked `valid`), accept it after, and every piece of text
// the client sent still reaches the upstream.

type Body = { model: string; messages: unknown[]; [key: string]: unknown };
interface Case {
  name: string;
  body: Body;
  /** OpenAI already accepts the input (a shape we tidy, or advice only). */
  valid?: boolean;
  /** The input must come back as the very same object. */
  unchanged?: boolean;
  kinds?: string[];
  options?: Partial<RepairOptions>;
  ledger?: (messages: ChatMessage[]) => LedgerSnapshot;
  /** Text the case is expected to drop (corrupted reprs with corruptedContent 'drop'). */
  dropped?: string[];
}

const P = { type: 'object', properties: { city: { type: 'string' } } };
const WEATHER = { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: P } };
const TIME = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } };
const TOOLS = [WEATHER, TIME];
const c = (id: unknown, name = 'get_weather', args: unknown = '{"city":"Paris"}') => ({ id, type: 'function', function: { name, arguments: args } });
const A = (...calls: unknown[]) => ({ role: 'assistant', content: null, tool_calls: calls });
const T = (id: unknown, content: unknown, extra: Record<string, unknown> = {}) =>
  id === undefined ? { role: 'tool', content, ...extra } : { role: 'tool', tool_call_id: id, content, ...extra };
const U = (content: unknown) => ({ role: 'user', content });
const S = { role: 'system', content: 'You are a helpful assistant.' };
const Q = U('What is the weather in Paris?');
const body = (messages: unknown[], extra: Record<string, unknown> = {}): Body => ({ model: 'gpt-4o', messages, tools: TOOLS, ...extra });
const REPR = '<agent_framework._types.ChatMessage object at 0x10c394210>';
const CALLS = [c('call_Pa1', 'get_weather', '{"city":"Paris"}'), c('call_Ti2', 'get_time', '{"tz":"CET"}')] as never[];

const cases: Case[] = [
  // ---- the real cases, verbatim ----
  {
    name: 'HF client kept only role+content: no tool_calls, no tool_call_id (no ledger entry)',
    body: body([S, Q, { role: 'assistant', content: '' }, { role: 'tool', content: '18C and sunny' }, U('And tomorrow?')]),
    kinds: ['orphan_tool_result'],
  },
  {
    name: 'HF client kept only role+content, the ledger has the answer: exact calls and ids back',
    body: body([S, Q, { role: 'assistant', content: '' }, { role: 'tool', content: '18C and sunny' }, { role: 'tool', content: '14:05 CET' }]),
    ledger: (messages) => {
      const fp = allPrefixFingerprints(messages)[2];
      return snapshot([], { [fp]: entry(CALLS, fp) });
    },
    kinds: ['restored_tool_calls', 'missing_tool_call_id'],
  },
  {
    name: 'agent framework sent its own AIFunction dicts as tools (input_model a JSON schema)',
    body: body([Q], {
      tools: [{ type: 'ai_function', name: 'get_weather', description: 'Get the weather', input_model: { title: 'WeatherArgs', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    }),
    kinds: ['tool_definition_converted'],
  },
  {
    name: 'AIFunction dicts whose input_model is a Python class repr',
    body: body([Q], { tools: [{ type: 'ai_function', name: 'get_weather', description: 'Get the weather', input_model: "<class 'app.tools.WeatherArgs'>" }] }),
    kinds: ['tool_definition_converted'],
  },
  {
    name: 'Python object reprs as message text (kept: corruptedContent keep)',
    body: body([S, Q, { role: 'assistant', content: REPR }, U('Try again')]),
    valid: true,
    unchanged: true,
    kinds: ['corrupted_content'],
  },
  {
    name: 'Python object reprs as message text (dropped)',
    body: body([S, Q, { role: 'assistant', content: REPR }, A(c('call_1')), T('call_1', REPR), U('Try again')]),
    valid: true,
    options: { corruptedContent: 'drop' },
    dropped: [REPR],
    kinds: ['corrupted_content'],
  },
  // ---- docs/clients.md: what real clients send ----
  { name: 'system prompt as text parts; developer role', body: body([{ role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] }, S, Q]), valid: true, unchanged: true },
  { name: 'chat user content as text parts', body: body([U([{ type: 'text', text: 'Weather in Paris?' }])]), valid: true, unchanged: true },
  {
    name: 'Responses-style input_text / output_text parts sent to chat',
    body: body([U([{ type: 'input_text', text: 'Weather in Paris?' }]), { role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.', annotations: [], logprobs: [] }] }, U('ok')]),
    kinds: ['content_parts_cleaned'],
  },
  {
    name: 'assistant tool-call message: content null / "" / string (openai SDK, AI SDK, LangChain)',
    body: body([Q, A(c('a')), T('a', '18C'), { role: 'assistant', content: '', tool_calls: [c('b')] }, T('b', '18C'), { role: 'assistant', content: 'Checking.', tool_calls: [c('d')] }, T('d', '18C')]),
    valid: true,
    unchanged: true,
  },
  {
    name: '@openai/agents: assistant text parts carrying annotations, role, tool_calls, refusal',
    body: body([Q, { role: 'assistant', content: [{ type: 'text', text: 'Checking the weather.', annotations: [], role: 'assistant', tool_calls: [], refusal: null }], tool_calls: [c('a')] }, T('a', '18C')]),
    valid: true,
    kinds: ['content_parts_cleaned'],
  },
  {
    name: 'assistant extra keys refusal, annotations, parsed, name; function.parsed_arguments',
    body: body([
      Q,
      { role: 'assistant', content: null, refusal: null, annotations: [], parsed: { city: 'Paris' }, name: 'bot', tool_calls: [{ id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}', parsed_arguments: { city: 'Paris' } } }] },
      T('a', '18C'),
    ]),
    valid: true,
    kinds: ['response_fields_removed', 'tool_call_shape'],
  },
  { name: 'LangChain tool result with name', body: body([Q, A(c('a')), T('a', '18C', { name: 'get_weather' })]), valid: true, unchanged: true },
  {
    name: 'tools flat Responses-shaped, strict true/false/null, $schema, additionalProperties false',
    body: body([Q], {
      tools: [
        { type: 'function', name: 'get_weather', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', ...P, additionalProperties: false }, strict: true },
        { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} }, strict: null },
        { type: 'function', name: 'noop', strict: false },
      ],
      tool_choice: 'auto',
    }),
    kinds: ['tool_definition_converted'],
  },
  { name: 'chat tools with strict null/absent, tool_choice auto, stream + include_usage', body: body([Q], { tools: [{ ...WEATHER, function: { ...WEATHER.function, strict: null } }, TIME], tool_choice: 'auto', stream: true, stream_options: { include_usage: true } }), valid: true, unchanged: true },
  // ---- missing / wrong ids ----
  { name: 'tool message without tool_call_id (by position)', body: body([Q, A(c('a'), c('b', 'get_time', '{}')), T(undefined, '18C'), T(undefined, '14:00')]), kinds: ['missing_tool_call_id'] },
  { name: 'tool message without id but with name, out of call order', body: body([Q, A(c('a'), c('b', 'get_time', '{}')), T(undefined, '14:00', { name: 'get_time' }), T(undefined, '18C', { name: 'get_weather' })]), kinds: ['missing_tool_call_id'] },
  { name: 'tool_call_id null', body: body([Q, A(c('a')), T(null, '18C')]), kinds: ['missing_tool_call_id'] },
  { name: 'numeric call ids and tool_call_id', body: body([Q, A(c(0)), T(0, '18C')]), kinds: ['tool_call_shape'] },
  // OpenAI only checks ids within one turn; Gemini/Anthropic-style upstreams need them unique.
  { name: 'the same "call_0" id every turn', body: body([Q, A(c('call_0')), T('call_0', '18C'), U('and Rome?'), A(c('call_0', 'get_weather', '{"city":"Rome"}')), T('call_0', '24C')]), valid: true, kinds: ['duplicate_call_id'] },
  { name: 'two calls with the same id in one message', body: body([Q, A(c('0'), c('0', 'get_time', '{}')), T('0', '18C'), T('0', '14:00')]), kinds: ['duplicate_call_id'] },
  { name: 'call without id: takes the id its result carries', body: body([Q, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }, T('fc_77', '18C')]), kinds: ['missing_call_id'] },
  // ---- orphans / missing results / order ----
  { name: 'orphan result with an unknown id', body: body([Q, T('call_gone', 'stale result', { name: 'get_weather' }), { role: 'assistant', content: 'Hi' }]), kinds: ['orphan_tool_result'] },
  { name: 'tool message first in the conversation', body: body([T('x', 'result first'), Q]), kinds: ['orphan_tool_result'] },
  { name: 'tool result after a plain assistant answer', body: body([Q, { role: 'assistant', content: 'It is sunny.' }, T(undefined, 'extra data')]), kinds: ['orphan_tool_result'] },
  { name: 'one of several parallel calls never answered', body: body([Q, A(c('a'), c('b', 'get_time', '{}')), T('a', '18C'), { role: 'assistant', content: 'Done' }]), kinds: ['missing_tool_result'] },
  { name: 'history ends with unanswered calls', body: body([Q, A(c('a'))]), kinds: ['missing_tool_result'] },
  { name: 'a user message between parallel results', body: body([Q, A(c('a'), c('b', 'get_time', '{}')), T('a', '18C'), U('hurry up'), T('b', '14:00')]), kinds: ['moved_tool_result'] },
  { name: 'result placed before its call', body: body([Q, T('a', '18C'), A(c('a')), { role: 'assistant', content: 'Sunny.' }]), kinds: ['moved_tool_result'] },
  { name: 'results separated from their call by another turn', body: body([Q, A(c('a')), U('also the time'), A(c('b', 'get_time', '{}')), T('b', '14:00'), T('a', '18C')]), kinds: ['moved_tool_result'] },
  { name: 'two results for one call', body: body([Q, A(c('a')), T('a', 'partial: 18C'), T('a', 'final: 18C, sunny')]), kinds: ['duplicate_tool_result'] },
  // ---- arguments ----
  { name: 'arguments as an object', body: body([Q, A(c('a', 'get_weather', { city: 'Paris' })), T('a', '18C')]), kinds: ['arguments_stringified'] },
  { name: 'arguments missing', body: body([Q, A({ id: 'a', type: 'function', function: { name: 'get_weather' } }), T('a', '18C')]), kinds: ['arguments_empty'] },
  { name: 'arguments invalid JSON (single quotes, trailing comma)', body: body([Q, A(c('a', 'get_weather', "{'city': 'Paris',}")), T('a', '18C')]), valid: true, kinds: ['arguments_repaired'] },
  { name: 'arguments empty string', body: body([Q, A(c('a', 'get_weather', '')), T('a', '18C')]), valid: true, kinds: ['arguments_empty'] },
  // ---- content shapes ----
  { name: 'user content null', body: body([U(null)]), kinds: ['content_null'] },
  { name: 'user content missing', body: body([{ role: 'user' }, Q]), kinds: ['content_null'] },
  { name: 'assistant content null without tool_calls', body: body([Q, { role: 'assistant', content: null }, U('hello?')]), kinds: ['content_null'] },
  { name: 'tool content as an object', body: body([Q, A(c('a')), T('a', { temperature: 18, unit: 'C' })]), kinds: ['content_stringified'] },
  { name: 'tool content as an array of values', body: body([Q, A(c('a')), T('a', [18, 'C'])]), kinds: ['content_stringified'] },
  { name: 'refusal echoed back with content null', body: body([Q, { role: 'assistant', content: null, refusal: 'I cannot share that.' }, U('why?')]), valid: true, kinds: ['response_fields_removed'] },
  { name: 'audio answer echoed back with data and transcript', body: body([Q, { role: 'assistant', content: null, audio: { id: 'audio_1', data: 'UklGRg==', expires_at: 1, transcript: 'It is sunny in Paris.' } }, U('thanks')]), valid: true, kinds: ['response_fields_removed'] },
  { name: 'Responses input_image part in chat', body: body([U([{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'https://example.com/a.png' }])]), kinds: ['content_parts_cleaned'] },
  // ---- tool-call shapes ----
  { name: 'empty tool_calls array', body: body([Q, { role: 'assistant', content: 'Sure.', tool_calls: [] }]), kinds: ['tool_call_shape'] },
  { name: 'tool_calls carrying the stream index', body: body([Q, A({ ...c('a'), index: 0 }), T('a', '18C')]), kinds: ['tool_call_shape'] },
  { name: 'tool call without type', body: body([Q, A({ id: 'a', function: { name: 'get_weather', arguments: '{}' } }), T('a', '18C')]), kinds: ['tool_call_shape'] },
  { name: 'tool call without the function wrapper', body: body([Q, A({ id: 'a', type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}' }), T('a', '18C')]), kinds: ['tool_call_shape'] },
  // ---- legacy protocol ----
  {
    name: 'legacy function_call + role function',
    body: body([Q, { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { role: 'function', name: 'get_weather', content: '18C' }]),
    valid: true,
    kinds: ['legacy_function_call'],
  },
  { name: 'legacy functions + function_call request', body: { model: 'gpt-4o', messages: [Q], functions: [{ name: 'get_weather', parameters: P }], function_call: { name: 'get_weather' } }, valid: true, kinds: ['tool_definition_converted', 'tool_choice_converted'] },
  // ---- tool definitions ----
  { name: 'bare {name, description, parameters} tool', body: body([Q], { tools: [{ name: 'get_weather', description: 'Weather', parameters: P }] }), kinds: ['tool_definition_converted'] },
  { name: 'Anthropic-style {name, input_schema} tool', body: body([Q], { tools: [{ name: 'get_weather', input_schema: P }] }), kinds: ['tool_definition_converted'] },
  { name: 'empty tools array with tool_choice', body: body([Q], { tools: [], tool_choice: 'auto' }), kinds: ['empty_tools_removed'] },
  { name: 'flat tool_choice {type, name}', body: body([Q], { tool_choice: { type: 'function', name: 'get_weather' } }), kinds: ['tool_choice_converted'] },
  // ---- ledger ----
  {
    name: 'assistant message dropped entirely; results kept their ids (ledger by call id)',
    body: body([S, Q, T('call_Pa1', '18C'), T('call_Ti2', '14:05')]),
    ledger: () => snapshot([entry(CALLS, 'x', 'Checking both.')]),
    kinds: ['restored_assistant_message'],
  },
  {
    name: 'one of two parallel calls dropped from the assistant message (ledger by call id)',
    body: body([Q, A(CALLS[0]), T('call_Pa1', '18C'), T('call_Ti2', '14:05')]),
    ledger: () => snapshot([entry(CALLS)]),
    kinds: ['restored_tool_calls'],
  },
  // ---- advice ----
  {
    name: 'the same call three times (loop) with loopNote',
    body: body([Q, ...[1, 2, 3].flatMap((i) => [A(c(`c${i}`)), T(`c${i}`, '18C')])]),
    valid: true,
    options: { loopNote: true },
    kinds: ['tool_loop'],
  },
  // ---- everything at once ----
  {
    name: 'many faults in one request',
    body: body([
      { role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
      Q,
      { role: 'assistant', content: [{ type: 'output_text', text: 'On it.', annotations: [] }], tool_calls: [{ id: 0, name: 'get_weather', arguments: { city: 'Paris' } }] },
      U('quick!'),
      T(0, { temp: 18 }),
      { role: 'assistant', content: null, tool_calls: [c(0, 'get_time', "{tz:'CET'}"), c('x2', 'get_weather', '')] },
      T(undefined, '14:00', { name: 'get_time' }),
      T('nobody', 'lost result'),
      { role: 'assistant', content: null },
    ], { tools: [{ type: 'function', name: 'get_weather', parameters: P }, { name: 'get_time' }] }),
    kinds: ['tool_definition_converted', 'content_parts_cleaned', 'tool_call_shape', 'duplicate_call_id', 'missing_tool_call_id', 'orphan_tool_result', 'moved_tool_result', 'missing_tool_result', 'arguments_stringified', 'arguments_repaired', 'arguments_empty', 'content_null', 'content_stringified'],
  },
];

/** Every piece of text a body carries in its messages. */
function textsOf(messages: unknown[]): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim() !== '') out.push(v.trim());
  };
  for (const m of messages as Array<Record<string, unknown>>) {
    const content = m.content;
    if (typeof content === 'string') add(content);
    else if (Array.isArray(content)) {
      const partLike = content.every((p) => typeof p === 'string' || (typeof p === 'object' && p !== null && ('type' in p || 'text' in p)));
      if (!partLike) add(JSON.stringify(content));
      else for (const p of content) add(typeof p === 'string' ? p : (p as Record<string, unknown>).text ?? (p as Record<string, unknown>).refusal);
    } else if (content !== null && content !== undefined) add(typeof content === 'object' ? JSON.stringify(content) : String(content));
    add(m.refusal);
    add((m.audio as Record<string, unknown> | undefined)?.transcript);
  }
  return out;
}

function haystack(messages: ChatMessage[]): string {
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n') : ''))
    .join('\n');
}

t.test('corpus size', async (t) => {
  t.ok(cases.length >= 40, `${cases.length} cases`);
  t.equal(new Set(cases.map((x) => x.name)).size, cases.length, 'names are unique');
});

for (const k of cases) {
  t.test(k.name, async (t) => {
    const before = checkChatRequest(k.body);
    if (k.valid) t.equal(before, null, 'OpenAI accepts the input as is');
    else t.not(before, null, `OpenAI rejects the input: ${before?.body.error.message}`);

    const request = deepFreeze(parseChatRequest(structuredClone(k.body)));
    const ledgerSnap = k.ledger ? k.ledger(request.messages) : undefined;
    const context = { ...ctx(k.options, ledgerSnap), declaredTools: declaredToolsOf(request) };
    const out = repairRequest(request, context);

    const after = checkChatRequest(out.request);
    t.equal(after, null, after ? `still rejected: ${after.body.error.message} (${after.body.error.param})` : 'OpenAI accepts the repaired request');
    if (k.unchanged) t.equal(out.request, request, 'same object back');
    else if (!k.valid) t.not(out.request, request, 'changed');

    const hay = haystack(out.request.messages);
    for (const text of textsOf(k.body.messages)) {
      if (k.dropped?.includes(text)) continue;
      t.ok(hay.includes(text), `text reaches the upstream: ${JSON.stringify(text.slice(0, 50))}`);
    }
    const found = new Set(out.findings.map((f) => f.kind));
    for (const kind of k.kinds ?? []) t.ok(found.has(kind), `finding ${kind}`);
  });
}
