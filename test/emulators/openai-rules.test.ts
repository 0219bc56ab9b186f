import t from 'tap';
import { checkChatRequest, KNOWN_CHAT_PARAMS } from './openai-rules.js';
import { specSchema, validateSchema } from '../helpers/openapi.js';

const user = (content: unknown = 'What is the weather in Paris?') => ({ role: 'user', content });
const call = (id: string, name = 'get_weather', args = '{"city":"Paris"}') => ({ id, type: 'function', function: { name, arguments: args } });
const asst = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map((id) => call(id)) });
const tool = (id: unknown, content: unknown = 'sunny') => ({ role: 'tool', tool_call_id: id, content });
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const req = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [user()], ...extra });

t.test('valid requests and histories are accepted', async (t) => {
  const ok: Array<[string, unknown]> = [
    ['a plain user message', req()],
    ['a full parallel tool loop', req({ tools: TOOLS, messages: [{ role: 'system', content: 'be brief' }, user(), asst('call_a', 'call_b'), tool('call_b', 'rain'), tool('call_a'), { role: 'assistant', content: 'done' }, user('thanks')] })],
    ['tool results that end the history', req({ tools: TOOLS, messages: [user(), asst('call_a'), tool('call_a')] })],
    // docs/clients.md: what real clients send back and OpenAI accepts.
    ['assistant extras: refusal, annotations, parsed, name; function.parsed_arguments; tool name', req({
      messages: [
        user(),
        { role: 'assistant', content: '', refusal: null, annotations: [], parsed: null, name: 'bot', tool_calls: [{ ...call('call_a'), function: { name: 'get_weather', arguments: '{}', parsed_arguments: {} } }] },
        { role: 'tool', tool_call_id: 'call_a', content: 'sunny', name: 'get_weather' },
      ],
    })],
    ['assistant content as text parts with stray keys', req({ messages: [user(), { role: 'assistant', content: [{ type: 'text', text: 'hi', annotations: [], refusal: null }] }, user('more')] })],
    ['developer and array content', req({ messages: [{ role: 'developer', content: [{ type: 'text', text: 'rules' }] }, user([{ type: 'text', text: 'hi' }])] })],
    ['empty string and empty array are content', req({ messages: [user(''), { role: 'assistant', content: [] }, user('x')] })],
    ['an assistant refusal stands in for content', req({ messages: [user(), { role: 'assistant', refusal: 'no' }, user('ok')] })],
    ['stream with stream_options, tool_choice forms, nulls for optionals', req({ stream: true, stream_options: { include_usage: true }, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false, temperature: null, store: false })],
    ['tool_choice auto/required/none', req({ tools: TOOLS, tool_choice: 'required' })],
    ['every spec parameter name is known', req(Object.fromEntries(KNOWN_CHAT_PARAMS.filter((k) => !['model', 'messages'].includes(k)).map((k) => [k, null])))],
  ];
  for (const [name, body] of ok) t.equal(checkChatRequest(body), null, name);
});

type Expected = { param: string | null; code: string | null; message: string };
const REJECTIONS: Array<[string, unknown, Expected]> = [
  ['no model', { messages: [user()] }, { param: null, code: null, message: 'you must provide a model parameter' }],
  ['an empty model', req({ model: '' }), { param: null, code: null, message: 'you must provide a model parameter' }],
  ['a body that is not an object', [1, 2], { param: null, code: null, message: 'you must provide a model parameter' }],
  ['no messages', { model: 'm' }, { param: 'messages', code: 'missing_required_parameter', message: "Missing required parameter: 'messages'." }],
  ['an unknown top-level key', req({ foo: 1 }), { param: null, code: null, message: 'Unrecognized request argument supplied: foo' }],
  ['a Responses-only key on chat', req({ reasoning: { effort: 'low' } }), { param: null, code: null, message: 'Unrecognized request argument supplied: reasoning' }],
  ['messages not an array', req({ messages: 'hi' }), { param: 'messages', code: 'invalid_type', message: "Invalid type for 'messages': expected an array of objects, but got a string instead." }],
  ['an empty messages array', req({ messages: [] }), { param: 'messages', code: 'empty_array', message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead." }],
  ['a message that is not an object', req({ messages: ['hi'] }), { param: 'messages[0]', code: 'invalid_type', message: "Invalid type for 'messages[0]': expected an object, but got a string instead." }],
  ['a message without role', req({ messages: [{ content: 'x' }] }), { param: 'messages[0].role', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[0].role'." }],
  ['an unknown role', req({ messages: [{ role: 'model', content: 'x' }] }), { param: 'messages[0].role', code: 'invalid_value', message: "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'." }],
  ['null user content', req({ messages: [user(null)] }), { param: 'messages.[0].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['absent user content', req({ messages: [{ role: 'user' }] }), { param: 'messages.[0].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['an assistant with neither content nor tool_calls', req({ messages: [user(), { role: 'assistant', content: null }, user('x')] }), { param: 'messages.[1].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['a null refusal is no substitute', req({ messages: [user(), { role: 'assistant', refusal: null }] }), { param: 'messages.[1].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['tool_calls on a user message are no substitute', req({ messages: [{ role: 'user', tool_calls: [call('c')] }] }), { param: 'messages.[0].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['developer content absent', req({ messages: [user(), { role: 'developer' }] }), { param: 'messages[1].content', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].content'." }],
  ['developer content null', req({ messages: [user(), { role: 'developer', content: null }] }), { param: 'messages[1].content', code: 'invalid_type', message: "Invalid type for 'messages[1].content': expected one of a string or array of objects, but got null instead." }],
  ['numeric content', req({ messages: [user(7)] }), { param: 'messages[0].content', code: 'invalid_type', message: "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an integer instead." }],
  ['object content', req({ messages: [user({ text: 'x' })] }), { param: 'messages[0].content', code: 'invalid_type', message: "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an object instead." }],
  ['a content part without type', req({ messages: [user([{ text: 'x' }])] }), { param: 'messages[0].content[0].type', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[0].content[0].type'." }],
  ['a content part of an unknown type', req({ messages: [user(), { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }] }), { param: 'messages[1].content[0].type', code: 'invalid_value', message: "Invalid value: 'thinking'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'." }],
  ['a Responses input_text part on chat', req({ messages: [user([{ type: 'input_text', text: 'x' }])] }), { param: 'messages[0].content[0].type', code: 'invalid_value', message: "Invalid value: 'input_text'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'." }],
  ['a text part without text', req({ messages: [user([{ type: 'text' }])] }), { param: 'messages[0].content[0].text', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[0].content[0].text'." }],
  ['tool_calls not an array', req({ messages: [user(), { role: 'assistant', content: 'x', tool_calls: 'x' }] }), { param: 'messages[1].tool_calls', code: 'invalid_type', message: "Invalid type for 'messages[1].tool_calls': expected an array of objects, but got a string instead." }],
  ['an empty tool_calls', req({ messages: [user(), { role: 'assistant', content: 'x', tool_calls: [] }] }), { param: 'messages[1].tool_calls', code: 'empty_array', message: "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead." }],
  ['a streamed index left on a tool call', req({ messages: [user(), { role: 'assistant', content: null, tool_calls: [{ index: 0, ...call('call_a') }] }, tool('call_a')] }), { param: 'messages[1].tool_calls[0].index', code: 'unknown_parameter', message: "Unknown parameter: 'messages[1].tool_calls[0].index'." }],
  ['a tool call without id', req({ messages: [user(), { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] }), { param: 'messages[1].tool_calls[0].id', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].tool_calls[0].id'." }],
  ['a tool call without type', req({ messages: [user(), { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] }] }), { param: 'messages[1].tool_calls[0].type', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].tool_calls[0].type'." }],
  ['a tool call without function', req({ messages: [user(), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] }] }), { param: 'messages[1].tool_calls[0].function', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].tool_calls[0].function'." }],
  ['a tool call function without name', req({ messages: [user(), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { arguments: '{}' } }] }] }), { param: 'messages[1].tool_calls[0].function.name', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].tool_calls[0].function.name'." }],
  ['a tool call name off the pattern', req({ messages: [user(), { role: 'assistant', tool_calls: [call('c', 'weather.get')] }, tool('c')] }), { param: 'messages[1].tool_calls[0].function.name', code: 'invalid_value', message: "Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'." }],
  ['a tool call without arguments', req({ messages: [user(), { role: 'assistant', tool_calls: [call('a'), { id: 'b', type: 'function', function: { name: 'f' } }] }] }), { param: 'messages[1].tool_calls[1].function.arguments', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].tool_calls[1].function.arguments'." }],
  ['object arguments', req({ messages: [user(), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { city: 'Paris' } } }] }, tool('c')] }), { param: 'messages[1].tool_calls[0].function.arguments', code: 'invalid_type', message: "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead." }],
  ['a tool message without tool_call_id', req({ messages: [user(), asst('call_a'), { role: 'tool', content: 'x' }] }), { param: 'messages[2].tool_call_id', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[2].tool_call_id'." }],
  ['a null tool_call_id', req({ messages: [user(), asst('call_a'), tool(null)] }), { param: 'messages.[2].tool_call_id', code: null, message: "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'." }],
  ['a tool_call_id over 40 characters', req({ messages: [user(), asst('fc_' + 'x'.repeat(50)), tool('fc_' + 'x'.repeat(50))] }), { param: 'messages[2].tool_call_id', code: 'string_above_max_length', message: "Invalid 'messages[2].tool_call_id': string too long. Expected a string with maximum length 40, but got a string with length 53 instead." }],
  ['a tool message without content', req({ messages: [user(), asst('call_a'), { role: 'tool', tool_call_id: 'call_a' }] }), { param: 'messages.[2].content', code: null, message: "Invalid value for 'content': expected a string, got null." }],
  ['a tool message with nothing before it', req({ messages: [user(), tool('call_a')] }), { param: 'messages.[1].role', code: null, message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." }],
  ['a tool message after the block was closed by a user turn', req({ messages: [user(), asst('call_a'), tool('call_a'), user('and?'), tool('call_a')] }), { param: 'messages.[4].role', code: null, message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." }],
  ['a tool message after a plain assistant turn', req({ messages: [user(), { role: 'assistant', content: 'hi' }, tool('call_a')] }), { param: 'messages.[2].role', code: null, message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." }],
  ['a tool reply to an id the assistant did not call', req({ messages: [user(), asst('call_a'), tool('call_a'), tool('call_zz')] }), { param: 'messages.[3].tool_call_id', code: null, message: "Invalid parameter: 'tool_call_id' of 'call_zz' not found in 'tool_calls' of previous message." }],
  ['two replies to one call', req({ messages: [user(), asst('call_a', 'call_b'), tool('call_a'), tool('call_a')] }), { param: 'messages.[3].tool_call_id', code: null, message: "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_a', in messages[2] and messages[3]." }],
  ['unanswered calls before the next user turn', req({ messages: [user(), asst('call_a', 'call_b'), user('hello?')] }), { param: 'messages.[2].role', code: null, message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a, call_b" }],
  ['a partly answered block', req({ messages: [user(), asst('call_a', 'call_b'), tool('call_b'), { role: 'assistant', content: 'x' }] }), { param: 'messages.[3].role', code: null, message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a" }],
  ['unanswered calls that end the history', req({ messages: [user(), asst('call_x')] }), { param: 'messages.[1].role', code: null, message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_x" }],
  ['a function message without name', req({ messages: [user(), { role: 'function', content: 'x' }] }), { param: 'messages[1].name', code: 'missing_required_parameter', message: "Missing required parameter: 'messages[1].name'." }],
  ['tools not an array', req({ tools: 'none' }), { param: 'tools', code: 'invalid_type', message: "Invalid type for 'tools': expected an array of objects, but got a string instead." }],
  ['an empty tools array', req({ tools: [] }), { param: 'tools', code: 'empty_array', message: "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead." }],
  ['129 tools', req({ tools: Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })) }), { param: 'tools', code: 'array_above_max_length', message: "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead." }],
  ['a flat Responses-shaped tool on chat', req({ tools: [{ type: 'function', name: 'get_weather', parameters: {} }] }), { param: 'tools[0].function', code: 'missing_required_parameter', message: "Missing required parameter: 'tools[0].function'." }],
  ['a tool of an unknown type', req({ tools: [{ type: 'web_search' }] }), { param: 'tools[0].type', code: 'invalid_value', message: "Invalid value: 'web_search'. Supported values are: 'function' and 'custom'." }],
  ['a tool function without name', req({ tools: [{ type: 'function', function: { parameters: {} } }] }), { param: 'tools[0].function.name', code: 'missing_required_parameter', message: "Missing required parameter: 'tools[0].function.name'." }],
  ['a blank tool name', req({ tools: [{ type: 'function', function: { name: '' } }] }), { param: 'tools[0].function.name', code: 'empty_string', message: "Invalid 'tools[0].function.name': empty string. Expected a string with minimum length 1, but got an empty string instead." }],
  ['a tool name off the pattern', req({ tools: [{ type: 'function', function: { name: 'get weather' } }] }), { param: 'tools[0].function.name', code: 'invalid_value', message: "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'." }],
  ['a 65-character tool name', req({ tools: [{ type: 'function', function: { name: 'f'.repeat(65) } }] }), { param: 'tools[0].function.name', code: 'string_above_max_length', message: "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a string with length 65 instead." }],
  ['string parameters', req({ tools: [{ type: 'function', function: { name: 'f', parameters: '{}' } }] }), { param: 'tools[0].function.parameters', code: 'invalid_type', message: "Invalid type for 'tools[0].function.parameters': expected an object, but got a string instead." }],
  ['an unknown tool_choice', req({ tools: TOOLS, tool_choice: 'any' }), { param: 'tool_choice', code: 'invalid_value', message: "Invalid value: 'any'. Supported values are: 'none', 'auto', and 'required'." }],
  ['an integer tool_choice', req({ tools: TOOLS, tool_choice: 7 }), { param: 'tool_choice', code: 'invalid_type', message: "Invalid type for 'tool_choice': expected one of one of 'none', 'auto', or 'required' or object, but got an integer instead." }],
  ['a tool_choice object without function', req({ tools: TOOLS, tool_choice: { type: 'function' } }), { param: 'tool_choice.function', code: 'missing_required_parameter', message: "Missing required parameter: 'tool_choice.function'." }],
  ['a tool_choice function without name', req({ tools: TOOLS, tool_choice: { type: 'function', function: {} } }), { param: 'tool_choice.function.name', code: 'missing_required_parameter', message: "Missing required parameter: 'tool_choice.function.name'." }],
  ['tool_choice without tools', req({ tool_choice: 'auto' }), { param: 'tool_choice', code: null, message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified." }],
  ['parallel_tool_calls without tools', req({ parallel_tool_calls: true }), { param: 'parallel_tool_calls', code: null, message: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified." }],
  ['a tool_choice naming an undeclared function', req({ tools: TOOLS, tool_choice: { type: 'function', function: { name: 'never_declared' } } }), { param: 'function_call', code: null, message: "Invalid value for 'function_call': no function named 'never_declared' was specified in the 'functions' parameter." }],
  ['stream_options without stream', req({ stream_options: { include_usage: true } }), { param: 'stream_options', code: null, message: "The 'stream_options' parameter is only allowed when 'stream' is enabled." }],
  ['an unknown stream_options member', req({ stream: true, stream_options: { bogus: 1 } }), { param: 'stream_options.bogus', code: 'unknown_parameter', message: "Unknown parameter: 'stream_options.bogus'." }],
  ['a string stream', req({ stream: 'yes' }), { param: 'stream', code: 'invalid_type', message: "Invalid type for 'stream': expected a boolean, but got a string instead." }],
  ['a string n', req({ n: '2' }), { param: 'n', code: 'invalid_type', message: "Invalid type for 'n': expected an integer, but got a string instead." }],
  ['n below the floor', req({ n: 0 }), { param: 'n', code: 'integer_below_min_value', message: "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead." }],
  ['a decimal seed', req({ seed: 1.5 }), { param: 'seed', code: 'invalid_type', message: "Invalid type for 'seed': expected an integer, but got a decimal number instead." }],
  ['a string temperature', req({ temperature: 'hot' }), { param: 'temperature', code: 'invalid_type', message: "Invalid type for 'temperature': expected a decimal, but got a string instead." }],
  ['presence_penalty below its range', req({ presence_penalty: -3 }), { param: 'presence_penalty', code: 'decimal_below_min_value', message: "Invalid 'presence_penalty': decimal below minimum value. Expected a value >= -2, but got -3 instead." }],
  ['an unknown service_tier', req({ service_tier: 'bogus' }), { param: 'service_tier', code: 'invalid_value', message: "Invalid value: 'bogus'. Supported values are: 'auto', 'default', 'flex', 'scale', 'priority', and 'fast'." }],
  ['a response_format without type', req({ response_format: {} }), { param: 'response_format.type', code: 'missing_required_parameter', message: "Missing required parameter: 'response_format.type'." }],
];

t.test('each broken shape gets OpenAI’s exact error', async (t) => {
  for (const [name, body, expected] of REJECTIONS) {
    const got = checkChatRequest(body);
    t.same(got, { status: 400, body: { error: { type: 'invalid_request_error', ...expected } } }, name);
  }
});

t.test('the unknown_parameter style for newer model families', async (t) => {
  t.same(checkChatRequest(req({ zzz_unknown: 1 }), { unknownParameterStyle: 'unknown_parameter' })?.body.error, {
    message: "Unknown parameter: 'zzz_unknown'.", type: 'invalid_request_error', param: 'zzz_unknown', code: 'unknown_parameter',
  });
});

t.test('two faults are reported in OpenAI’s order', async (t) => {
  const order: Array<[string, unknown, string]> = [
    ['a missing model beats an unknown key', { messages: [user()], foo: 1 }, 'you must provide a model parameter'],
    ['a missing messages beats an unknown key', { model: 'm', foo: 1 }, "Missing required parameter: 'messages'."],
    ['an unknown key beats an empty messages array', req({ foo: 1, messages: [] }), 'Unrecognized request argument supplied: foo'],
    ['a bad role later beats a missing content earlier', req({ messages: [{ role: 'user' }, { role: 'bogus', content: 'a' }] }), "Invalid value: 'bogus'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."],
    ['a content type fault later beats a missing content earlier', req({ messages: [{ role: 'user' }, user(7)] }), "Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an integer instead."],
    ['a tools fault beats an orphan tool message', req({ tools: [], messages: [user(), tool('call_a')] }), "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead."],
    ['messages are checked before tools', req({ tools: 'x', messages: [7] }), "Invalid type for 'messages[0]': expected an object, but got an integer instead."],
    ['n is reported before temperature', req({ n: 'abc', temperature: 'x' }), "Invalid type for 'n': expected an integer, but got a string instead."],
  ];
  for (const [name, body, message] of order) t.equal(checkChatRequest(body)?.body.error.message, message, name);
});

t.test('rule failures are valid OpenAI ErrorResponse bodies', async (t) => {
  for (const [name, body] of REJECTIONS) t.same(validateSchema('ErrorResponse', checkChatRequest(body)!.body), [], name);
});

t.test('KNOWN_CHAT_PARAMS is exactly the spec’s CreateChatCompletionRequest properties', async (t) => {
  const names = new Set<string>();
  const visit = (s: any): void => {
    if (!s || typeof s !== 'object') return;
    if (typeof s.$ref === 'string') visit(specSchema(s.$ref.split('/').pop()));
    for (const part of s.allOf ?? []) visit(part);
    for (const k of Object.keys(s.properties ?? {})) names.add(k);
  };
  visit(specSchema('CreateChatCompletionRequest'));
  t.same([...names].sort(), [...KNOWN_CHAT_PARAMS].sort());
});
