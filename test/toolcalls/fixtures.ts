import { LAST_MILE_CASES } from './fixtures-last-mile.js';

// Model outputs per format, with what the parser must make of them. Shared by the parser tests
// and the streaming tests (which check every case over many random splits).

export interface ExpectedCall {
  name: string;
  args: Record<string, unknown>;
}

export interface ParseCase {
  title: string;
  /** The format that must report the calls (and whose own parse must find them). */
  format: string;
  text: string;
  /** null: the text stays content (no tool-call answer). */
  calls: ExpectedCall[] | null;
  content?: string | null;
}

const W = (city: string, extra: Record<string, unknown> = {}): ExpectedCall => ({ name: 'get_weather', args: { city, ...extra } });
const T = (args: Record<string, unknown> = {}): ExpectedCall => ({ name: 'get_time', args });

export const CASES: ParseCase[] = [
  // ---- Hermes / Qwen ----
  { title: 'single', format: 'hermes', text: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>', calls: [W('SF')], content: 'Let me check.\n' },
  { title: 'parallel', format: 'hermes', text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "PST"}}\n</tool_call>', calls: [W('SF'), T({ zone: 'PST' })], content: null },
  { title: 'nested JSON', format: 'hermes', text: '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "b", "options": {"mode": {"x": [1, {"y": null}]}}}}</tool_call>', calls: [{ name: 'write_file', args: { path: 'a', content: 'b', options: { mode: { x: [1, { y: null }] } } } }], content: null },
  { title: 'braces and tags inside strings', format: 'hermes', text: '<tool_call>{"name": "write_file", "arguments": {"path": "x}", "content": "</tool_call> <tool_call>{\\"a\\": [}"}}</tool_call> done', calls: [{ name: 'write_file', args: { path: 'x}', content: '</tool_call> <tool_call>{"a": [}' } }], content: ' done' },
  { title: 'unicode', format: 'hermes', text: 'Voilà 🌦\n<tool_call>{"name": "get_weather", "arguments": {"city": "東京 \\u00e9"}}</tool_call>', calls: [W('東京 é')], content: 'Voilà 🌦\n' },
  { title: 'empty arguments', format: 'hermes', text: '<tool_call>{"name": "get_time", "arguments": {}}</tool_call><tool_call>{"name": "get_time"}</tool_call><tool_call>{"name": "get_time", "arguments": ""}</tool_call>', calls: [T(), T(), T()], content: null },
  { title: 'closing tag missing at the end', format: 'hermes', text: 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}', calls: [W('SF')], content: 'Checking.\n' },
  { title: 'truncated output', format: 'hermes', text: 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "S', calls: null },
  { title: 'over-closed JSON', format: 'hermes', text: '<tool_call>{"name": "get_weather", "arguments": {"city": "SF"}}}\n</tool_call>', calls: [W('SF')], content: null },
  { title: 'malformed JSON', format: 'hermes', text: '<tool_call>{"name": "get_weather", "arguments": {"city": "SF"]}</tool_call>', calls: null },
  { title: 'prose that mentions the tag and a tool', format: 'hermes', text: 'I would wrap get_weather in a <tool_call> tag, like <tool_call> here.', calls: null },
  { title: 'undeclared name', format: 'hermes', text: '<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>', calls: null },
  { title: 'aliased name (tool_ prefix)', format: 'hermes', text: '<tool_call>{"name": "tool_search_procedure", "arguments": {"query": "reset"}}</tool_call>', calls: [{ name: 'search_procedure', args: { query: 'reset' } }], content: null },
  { title: 'inside <think> only', format: 'hermes', text: '<think>I could <tool_call>{"name": "get_weather", "arguments": {"city": "SF"}}</tool_call></think>It is sunny.', calls: null },
  { title: 'after <think>', format: 'hermes', text: '<think>need weather</think>\n<tool_call>{"name": "get_weather", "arguments": {"city": "SF"}}</tool_call>', calls: [W('SF')], content: '<think>need weather</think>\n' },
  { title: 'code sample in a fence', format: 'hermes', text: 'Example:\n```xml\n<tool_call>{"name": "get_weather", "arguments": {"city": "SF"}}</tool_call>\n```\nThat is the syntax.', calls: null },

  // ---- Mistral ----
  { title: 'single (pre-v11)', format: 'mistral', text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "SF"}}]', calls: [W('SF')], content: null },
  { title: 'parallel (pre-v11)', format: 'mistral', text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "SF"}}, {"name": "get_time", "arguments": {}}]', calls: [W('SF'), T()], content: null },
  { title: 'v11 with [ARGS], parallel', format: 'mistral', text: 'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "SF"}[TOOL_CALLS]get_time[ARGS]{}', calls: [W('SF'), T()], content: 'Sure.' },
  { title: 'v11 without [ARGS], nested', format: 'mistral', text: '[TOOL_CALLS]write_file{"path": "a", "content": "{[}]", "options": {"deep": {"er": [1, 2]}}}', calls: [{ name: 'write_file', args: { path: 'a', content: '{[}]', options: { deep: { er: [1, 2] } } } }], content: null },
  { title: 'v13 with [CALL_ID]', format: 'mistral', text: '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Zürich"}', calls: [W('Zürich')], content: null },
  { title: 'truncated', format: 'mistral', text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city"', calls: null },
  { title: 'malformed', format: 'mistral', text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "SF"]}', calls: null },
  { title: 'prose mention', format: 'mistral', text: 'Mistral models emit [TOOL_CALLS] before calls like get_weather.', calls: null },
  { title: 'undeclared', format: 'mistral', text: '[TOOL_CALLS]launch_rockets{"count": 3}', calls: null },

  // ---- Llama 3.x JSON ----
  { title: 'python_tag single', format: 'llama3-json', text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "SF"}}', calls: [W('SF')], content: null },
  { title: 'python_tag parallel with ;', format: 'llama3-json', text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "SF"}}; {"name": "get_time", "parameters": {}}<|eom_id|>', calls: [W('SF'), T()], content: null },
  { title: 'python_tag strings with ; and braces, unicode', format: 'llama3-json', text: '<|python_tag|>{"name": "write_file", "parameters": {"path": "a;b}", "content": "{\\"x\\": \\"ü\\"}; next"}}', calls: [{ name: 'write_file', args: { path: 'a;b}', content: '{"x": "ü"}; next' } }], content: null },
  { title: 'python_tag truncated', format: 'llama3-json', text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": ', calls: null },
  { title: 'python_tag with python code', format: 'llama3-json', text: '<|python_tag|>brave_search.call(query="weather")', calls: null },
  { title: 'bare JSON with parameters', format: 'json', text: '{"name": "get_weather", "parameters": {"city": "SF", "days": 2}}', calls: [W('SF', { days: 2 })], content: null },
  { title: 'bare JSON separated by ;', format: 'json', text: '{"name": "get_weather", "parameters": {"city": "SF"}}; {"name": "get_time", "parameters": {}}', calls: [W('SF'), T()], content: null },

  // ---- Pythonic ----
  { title: 'single', format: 'pythonic', text: "[get_weather(city='SF')]", calls: [W('SF')], content: null },
  { title: 'parallel', format: 'pythonic', text: "[get_weather(city='SF', days=3, metric=True), get_time()]", calls: [W('SF', { days: 3, metric: true }), T()], content: null },
  { title: 'nested values', format: 'pythonic', text: "[write_file(path='a', content='b', options={'mode': {'x': [1, 2.5, None]}}, tags=['x', 'y'])]", calls: [{ name: 'write_file', args: { path: 'a', content: 'b', options: { mode: { x: [1, 2.5, null] } }, tags: ['x', 'y'] } }], content: null },
  { title: 'brackets and quotes in strings, unicode', format: 'pythonic', text: '[write_file(path="a)]", content=\'it\\\'s [ok] ✓\')]', calls: [{ name: 'write_file', args: { path: 'a)]', content: "it's [ok] ✓" } }], content: null },
  { title: 'Llama 4 markers', format: 'pythonic', text: "<|python_start|>[get_weather(city='SF'), get_time(zone='UTC')]<|python_end|>", calls: [W('SF'), T({ zone: 'UTC' })], content: null },
  { title: 'truncated', format: 'pythonic', text: "[get_weather(city='S", calls: null },
  { title: 'malformed', format: 'pythonic', text: '[get_weather(city=)]', calls: null },
  { title: 'prose mention mid-text', format: 'pythonic', text: "I think [get_weather(city='SF')] would work.", calls: null },
  { title: 'markdown link', format: 'pythonic', text: '[docs](https://example.com) explain get_weather().', calls: null },
  { title: 'undeclared', format: 'pythonic', text: '[launch_rockets(count=3)]', calls: null },

  // ---- Qwen3-Coder XML ----
  { title: 'single, typed values', format: 'qwen3-coder', text: 'On it.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n123\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n</function>\n</tool_call>', calls: [W('123', { days: 3, metric: true })], content: 'On it.\n' },
  { title: 'parallel', format: 'qwen3-coder', text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>', calls: [W('SF'), T()], content: null },
  { title: 'object and array values, tags inside values', format: 'qwen3-coder', text: '<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=content>\nconst x = "</parameter>"; // <tool_call>\n</parameter>\n<parameter=options>\n{"mode": 420}\n</parameter>\n<parameter=tags>\n["a", "ü"]\n</parameter>\n</function>\n</tool_call>', calls: [{ name: 'write_file', args: { path: 'src/a.ts', content: 'const x = "</parameter>"; // <tool_call>', options: { mode: 420 }, tags: ['a', 'ü'] } }], content: null },
  { title: 'Llama 3.1 <function=…>{json}</function>', format: 'qwen3-coder', text: '<function=get_weather>{"city": "SF"}</function>', calls: [W('SF')], content: null },
  { title: 'truncated', format: 'qwen3-coder', text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nS', calls: null },
  { title: 'malformed', format: 'qwen3-coder', text: '<tool_call>\n<function=get_weather>\nrandom text\n</function>\n</tool_call>', calls: null },
  { title: 'prose mention', format: 'qwen3-coder', text: 'The <function=get_weather> tag is how Qwen3-Coder calls tools.', calls: null },
  { title: 'undeclared', format: 'qwen3-coder', text: '<tool_call>\n<function=launch_rockets>\n<parameter=count>\n3\n</parameter>\n</function>\n</tool_call>', calls: null },

  // ---- JSON and pythonic calls in a model's wrapper (one case each; more in test/toolcalls/formats/) ----
  { title: 'Jamba array', format: 'tool-calls-tag', text: 'Checking.\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "SF"}}]</tool_calls>', calls: [W('SF')], content: 'Checking.\n' },
  { title: 'Nemotron', format: 'nemotron', text: '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "SF"}}, {"name": "get_time", "arguments": {}}]</TOOLCALL>', calls: [W('SF'), T()], content: null },
  { title: '<tools> one per line', format: 'tools-tag', text: '<tools>\n{"name": "get_time", "arguments": {}}\n{"name": "get_weather", "parameters": {"city": "SF"}}\n</tools>', calls: [T(), W('SF')], content: null },
  { title: 'Granite', format: 'granite', text: '<|tool_call|>[{"arguments": {"city": "SF"}, "name": "get_weather"}]', calls: [W('SF')], content: null },
  { title: 'Phi-4-mini', format: 'phi4', text: 'functools[{"name": "get_weather", "arguments": {"city": "SF"}}]', calls: [W('SF')], content: null },
  { title: '<function_call>', format: 'function-call-tag', text: '<function_call>{"name": "get_time", "arguments": {}}</function_call> ok', calls: [T()], content: ' ok' },
  { title: 'LongCat', format: 'longcat', text: '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</longcat_tool_call>', calls: [W('SF')], content: null },
  { title: 'InternLM plugin', format: 'internlm', text: 'Let me see.<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "SF"}}<|action_end|>', calls: [W('SF')], content: 'Let me see.' },
  { title: 'LFM2 pythonic', format: 'lfm2', text: '<|tool_call_start|>[get_weather(city="SF"), get_time()]<|tool_call_end|>', calls: [W('SF'), T()], content: null },
  { title: 'OLMo 3 one per line', format: 'olmo3', text: '<function_calls>\nget_weather(city="SF", metric=true)\nget_time(zone=null)\n</function_calls>', calls: [W('SF', { metric: true }), T({ zone: null })], content: null },
  { title: 'Llama 3 call inside prose', format: 'llama3-inline', text: 'Here is the result: {"name": "get_weather", "parameters": {"city": "SF"}} Would you like more?', calls: [W('SF')], content: 'Here is the result:  Would you like more?' },
  { title: 'GigaChat 3 call turn', format: 'gigachat', text: 'Проверяю.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "SF"}}', calls: [W('SF')], content: 'Проверяю.' },

  // ---- <TOOL> ----
  { title: 'free text to the single required string', format: 'tool-tag', text: 'Looking it up.\n<TOOL>search_procedure: "how to reset a router"</TOOL>', calls: [{ name: 'search_procedure', args: { query: 'how to reset a router' } }], content: 'Looking it up.\n' },
  { title: 'parallel, unquoted, unicode', format: 'tool-tag', text: '<TOOL>search_procedure: réinitialiser {le} routeur</TOOL>\n<TOOL>get_weather: Tōkyō</TOOL>', calls: [{ name: 'search_procedure', args: { query: 'réinitialiser {le} routeur' } }, W('Tōkyō')], content: null },
  { title: 'JSON body and no arguments', format: 'tool-tag', text: '<TOOL>get_weather: {"city": "SF", "days": 1}</TOOL><TOOL>get_time</TOOL>', calls: [W('SF', { days: 1 }), T()], content: null },
  { title: 'tool without a single string parameter', format: 'tool-tag', text: '<TOOL>write_file: "hello"</TOOL>', calls: null },
  { title: 'truncated', format: 'tool-tag', text: '<TOOL>search_procedure: "how to', calls: null },
  { title: 'undeclared', format: 'tool-tag', text: '<TOOL>launch_rockets: "now"</TOOL>', calls: null },

  // ---- JSON (fenced / bare) ----
  { title: 'fenced single', format: 'json', text: 'I will call the tool:\n```json\n{"name": "get_weather", "arguments": {"city": "SF"}}\n```', calls: [W('SF')], content: 'I will call the tool:\n' },
  { title: 'fenced array, parallel', format: 'json', text: '```json\n[{"name": "get_weather", "arguments": {"city": "SF"}}, {"name": "get_time", "arguments": {}}]\n```\nWaiting for results.', calls: [W('SF'), T()], content: '\nWaiting for results.' },
  { title: 'bare at the end after prose', format: 'json', text: 'Let me look that up.\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}', calls: [W('Paris', { days: 2 })], content: 'Let me look that up.\n' },
  { title: 'OpenAI-shaped, braces and backticks in strings', format: 'json', text: '{"type": "function", "function": {"name": "write_file", "arguments": "{\\"path\\": \\"a`}\\", \\"content\\": \\"```\\"}"}}', calls: [{ name: 'write_file', args: { path: 'a`}', content: '```' } }], content: null },
  { title: 'JSON that merely looks like a call', format: 'json', text: '{"name": "John", "age": 31}', calls: null },
  { title: 'call-like JSON in the middle of prose', format: 'json', text: 'The payload\n{"name": "get_weather", "arguments": {"city": "SF"}}\nis what the API expects.', calls: null },
  { title: 'fence in another language', format: 'json', text: '```python\n{"name": "get_weather", "arguments": {"city": "SF"}}\n```', calls: null },
  { title: 'truncated fence', format: 'json', text: '```json\n{"name": "get_weather", "arguments": {"ci', calls: null },
  { title: 'undeclared', format: 'json', text: '{"name": "launch_rockets", "arguments": {}}', calls: null },

  // ---- functions.name:N remnants ----
  { title: 'bare remnant', format: 'functions-remnant', text: 'functions.get_weather:0 {"city": "SF"}', calls: [W('SF')], content: null },
  { title: 'Kimi markers, parallel', format: 'functions-remnant', text: 'Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Köln"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>', calls: [W('Köln'), T()], content: 'Checking.' },
  { title: 'remnant mentioned without arguments', format: 'functions-remnant', text: 'The id functions.get_weather:0 names the call.', calls: null },

  // ---- DeepSeek ----
  { title: 'V3 parallel', format: 'deepseek', text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "SF"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', calls: [W('SF'), T()], content: null },
  { title: 'V3.1 with unicode', format: 'deepseek', text: '好的。<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "北京"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', calls: [W('北京')], content: '好的。' },
  { title: 'truncated', format: 'deepseek', text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "S', calls: null },
  { title: 'undeclared', format: 'deepseek', text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>launch<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', calls: null },

  // ---- Tag-based formats (more in test/toolcalls/formats/) ----
  { title: 'GLM-4.5', format: 'glm45', text: 'On it.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>', calls: [W('SF', { days: 2 })], content: 'On it.\n' },
  { title: 'Hunyuan', format: 'hunyuan', text: '<tool_calls>\n<tool_call>get_time<tool_sep>\n</tool_call>\n</tool_calls>', calls: [T()], content: null },
  { title: 'MiniMax M2', format: 'minimax-m2', text: '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">SF</parameter>\n</invoke>\n</minimax:tool_call>', calls: [W('SF')], content: null },
  { title: 'DeepSeek V3.2 DSML', format: 'deepseek-dsml', text: '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">SF</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', calls: [W('SF')], content: null },
  { title: 'gpt-oss harmony call', format: 'gpt-oss', text: '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"SF"}<|call|>', calls: [W('SF')], content: null },
  { title: 'Step-3', format: 'step3', text: '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_time"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>', calls: [T()], content: null },

  // ---- What the formats used to miss (test/toolcalls/fixtures-last-mile.ts) ----
  ...LAST_MILE_CASES,
];

/** Texts for the streaming property: plain prose, near-misses and mixtures. */
export const STREAM_EXTRA_TEXTS: string[] = [
  'Just a plain answer with no tools at all, over a few words.',
  '  \n Leading and trailing whitespace \n\n',
  'A < b and c > d; arrays [1, 2] and {braces} in prose, `inline <tool_call>` code.',
  'Prose first.\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\nThen more prose.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
  '<think>thinking about [get_weather(city="x")] and {"name": "get_time", "arguments": {}}</think>\n[get_weather(city="Rome")]',
  '<think>unclosed reasoning <tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
  'functions are fun; functional code; f',
  '```\nno language\n```\n{"name": "get_time", "arguments": {}}',
  '```ts\nconst call = "<tool_call>";\n```\nText after code.\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
  '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>   \n\n  ',
  '<tool_call>{"name": "get_weather", "arguments": {"city": "SF"}}}</tool_call>',
  '<tool_call></tool_call><tool_call>{}</tool_call>',
  '[TOOL_CALLS]',
  '[TOOL_CALLS]get_time',
  'Text <TOOL> not closed and <function=x> and <｜tool▁call▁begin｜> and <|python_tag|> hello',
  // Long blocks: the scanner re-reads open blocks less often as they grow.
  `Writing.\n<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "${'line }{ ]['.repeat(60)}"}}</tool_call>\nDone.`,
  `Writing.\n{"name": "write_file", "arguments": {"path": "a", "content": "${'x'.repeat(700)}"}}`,
  `[write_file(path='a', content='${'y'.repeat(500)}')]\nand prose`,
  `<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "${'z'.repeat(400)}`,
];
