import type { ParseCase } from './fixtures.js';

// Real open-model outputs the formats used to miss, shaped as the models' chat templates write
// them and as vLLM's / SGLang's parsers read them (kimi_k2, lfm2, olmo3, deepseekv4 tool parsers),
// with the near-misses that must stay content. `malformed`: calls left out of a block whose other
// calls stand (counted in the normalize report).

export interface LastMileCase extends ParseCase {
  malformed?: number;
}

const W = (city: string, extra: Record<string, unknown> = {}) => ({ name: 'get_weather', args: { city, ...extra } });
const T = (args: Record<string, unknown> = {}) => ({ name: 'get_time', args });

const KIMI = {
  section: (calls: string) => `<|tool_calls_section_begin|>${calls}<|tool_calls_section_end|>`,
  call: (id: string, args: string) => `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`,
};
const DSML_V4 = (body: string) => `<｜DSML｜tool_calls>\n${body}</｜DSML｜tool_calls>`;

export const LAST_MILE_CASES: LastMileCase[] = [
  // ---- Kimi K2: one unreadable call in a section leaves its siblings standing ----
  {
    title: 'Kimi K2: a call with a broken id between two good ones',
    format: 'functions-remnant',
    text: `Checking both.${KIMI.section(KIMI.call('functions.get_weather:0', '{"city": "Paris"}') + KIMI.call('functions.get time:1', '{}') + KIMI.call('functions.get_time:2', '{"zone": "CET"}'))}`,
    calls: [W('Paris'), T({ zone: 'CET' })],
    content: 'Checking both.',
    malformed: 1,
  },
  {
    title: 'Kimi K2: a call whose arguments are not an object',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('functions.get_weather:0', '["Paris"]') + KIMI.call('functions.get_time:1', '{}')),
    calls: [T()],
    content: null,
    malformed: 1,
  },
  {
    title: 'Kimi K2: every call unreadable stays content',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('functions.get weather:0', '{"city": "Paris"}')),
    calls: null,
  },
  // ---- Kimi K2: ids copied from a history the client rewrote (SGLang's kimi_k2 detector reads them) ----
  {
    title: 'Kimi K2: bare counter ids, the tool known from its arguments',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('0', '{"city": "Oslo", "days": 2}') + KIMI.call('1', '{"query": "reset router"}')),
    calls: [W('Oslo', { days: 2 }), { name: 'search_procedure', args: { query: 'reset router' } }],
    content: null,
  },
  {
    title: 'Kimi K2: prefixed counter id (call00003)',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('call00003', '{"path": "a.txt", "content": "hi"}')),
    calls: [{ name: 'write_file', args: { path: 'a.txt', content: 'hi' } }],
    content: null,
  },
  {
    title: 'Kimi K2: sanitized ids (functions_get_weather_1, functionsget_time2)',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('functions_get_weather_1', '{"city": "Lyon"}') + KIMI.call('functionsget_time2', '{}')),
    calls: [W('Lyon'), T()],
    content: null,
  },
  {
    title: 'Kimi K2: a counter id whose arguments fit no single tool stays content',
    format: 'functions-remnant',
    text: KIMI.section(KIMI.call('0', '{"zone": "UTC", "city": "Oslo"}')),
    calls: null,
  },
  // ---- OLMo 3: one unreadable line in <function_calls> ----
  {
    title: 'OLMo 3: a call line that cannot be read between good ones',
    format: 'olmo3',
    text: 'Let me look.\n<function_calls>\nget_weather(city="Seattle")\nget_time(zone=UTC)\nget_weather(city="Boise", days=2)\n</function_calls>',
    calls: [W('Seattle'), W('Boise', { days: 2 })],
    content: 'Let me look.\n',
    malformed: 1,
  },
  {
    title: 'OLMo 3: a prose line in the block keeps it content',
    format: 'olmo3',
    text: '<function_calls>\nget_weather(city="Seattle")\nthen I would call get_time\n</function_calls>',
    calls: null,
  },
  // ---- LFM2 variants ----
  {
    title: 'LFM2: calls without the list brackets',
    format: 'lfm2',
    text: '<|tool_call_start|>get_weather(city="Antwerp"), get_time(zone="CET")<|tool_call_end|>Checking now.',
    calls: [W('Antwerp'), T({ zone: 'CET' })],
    content: 'Checking now.',
  },
  {
    title: 'LFM2: the calls echoed after the closing token (vLLM drops the echo)',
    format: 'lfm2',
    text: '<|tool_call_start|>[get_weather(city="Antwerp")]<|tool_call_end|>[get_weather(city="Antwerp")]<|tool_call_end|>The weather is being fetched.',
    calls: [W('Antwerp')],
    content: 'The weather is being fetched.',
  },
  {
    title: 'LFM2: a different list after the closing token is not an echo',
    format: 'lfm2',
    text: '<|tool_call_start|>[get_weather(city="Antwerp")]<|tool_call_end|> [get_weather(city="Ghent")] is next.',
    calls: [W('Antwerp')],
    content: ' [get_weather(city="Ghent")] is next.',
  },
  {
    title: 'LFM2: prose after the token stays content',
    format: 'lfm2',
    text: 'The <|tool_call_start|> token opens get_weather calls.',
    calls: null,
  },
  // ---- DeepSeek V4: the V3.2 grammar in <｜DSML｜tool_calls> ----
  {
    title: 'DeepSeek V4 DSML tool_calls section, string and JSON values',
    format: 'deepseek-dsml',
    text: `Let me check.\n\n${DSML_V4('<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Hangzhou</｜DSML｜parameter>\n<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name="get_time">\n</｜DSML｜invoke>\n')}`,
    calls: [W('Hangzhou', { days: 3 }), T()],
    content: 'Let me check.\n\n',
  },
  {
    title: 'DeepSeek V4: an undeclared tool stays content',
    format: 'deepseek-dsml',
    text: DSML_V4('<｜DSML｜invoke name="rm_rf">\n</｜DSML｜invoke>\n'),
    calls: null,
  },
  // ---- Decided: a string where the arguments object should be ----
  {
    title: 'Hermes: arguments written as a plain string go to the single string parameter',
    format: 'hermes',
    text: '<tool_call>\n{"name": "search_procedure", "arguments": "reset the router"}\n</tool_call>',
    calls: [{ name: 'search_procedure', args: { query: 'reset the router' } }],
    content: null,
  },
  {
    title: 'Hermes: a JSON-quoted string likewise',
    format: 'hermes',
    text: '<tool_call>{"name": "search_procedure", "arguments": "\\"reset\\""}</tool_call>',
    calls: [{ name: 'search_procedure', args: { query: 'reset' } }],
    content: null,
  },
  {
    title: 'Hermes: a string for a tool without a single string parameter is wrapped as raw_arguments',
    format: 'hermes',
    text: '<tool_call>{"name": "write_file", "arguments": "a.txt hello"}</tool_call>',
    calls: [{ name: 'write_file', args: { raw_arguments: 'a.txt hello' } }],
    content: null,
  },
  // ---- Hunyuan-A13B: the call section as the whole of its <answer> wrapper ----
  {
    title: 'Hunyuan-A13B: <answer> holding only the JSON call section goes with the calls',
    format: 'hunyuan',
    text: '<think>\nThe user wants the weather.\n</think>\n<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]</tool_calls>\n</answer>',
    calls: [W('Paris'), T()],
    content: '<think>\nThe user wants the weather.\n</think>\n',
  },
  {
    title: 'Hunyuan-A13B: prose in the <answer> keeps the wrapper as content',
    format: 'tool-calls-tag',
    text: '<answer>\nI will check.\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>\n</answer>',
    calls: [W('Paris')],
    content: '<answer>\nI will check.\n\n</answer>',
  },
  {
    title: 'Hunyuan-A13B: an answer without calls is left alone',
    format: 'hunyuan',
    text: '<answer>\nUse <tool_calls> to call get_weather.\n</answer>',
    calls: null,
  },
  // ---- GigaChat 3: string arguments are no call (vLLM's gigachat3 parser) ----
  {
    title: 'GigaChat 3: a function-call turn whose arguments are a string stays content',
    format: 'gigachat',
    text: 'Вот пример.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "search_procedure", "arguments": "сброс пароля"}',
    calls: null,
  },
  {
    title: 'GigaChat 3: the same turn with an arguments object is a call',
    format: 'gigachat',
    text: 'Проверяю.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "search_procedure", "arguments": {"query": "сброс пароля"}}</s>',
    calls: [{ name: 'search_procedure', args: { query: 'сброс пароля' } }],
    content: 'Проверяю.',
  },
  // ---- Step-3 without the call type, a separator between calls (vLLM's step3 tests write them so) ----
  {
    title: 'Step-3: calls without function<｜tool_sep｜>, a <｜tool_sep｜> between them',
    format: 'step3',
    text: 'Checking.\n<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_sep｜><｜tool_call_begin｜><steptml:invoke name="get_time"><steptml:parameter name="zone">Asia/Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    calls: [W('Tokyo'), T({ zone: 'Asia/Tokyo' })],
    content: 'Checking.\n',
  },
  // ---- MiniMax M2: an indented call has indented values (stripped, as MiniMax's guide and vLLM do) ----
  {
    title: 'MiniMax M2: an indented call after prose',
    format: 'minimax-m2',
    text: 'Here is the weather:\n  <minimax:tool_call>\n  <invoke name="get_weather">\n  <parameter name="city">\n  New York, NY\n  </parameter>\n  <parameter name="days">\n  2\n  </parameter>\n  </invoke>\n  </minimax:tool_call>',
    calls: [W('New York, NY', { days: 2 })],
    content: 'Here is the weather:\n  ',
  },
];
