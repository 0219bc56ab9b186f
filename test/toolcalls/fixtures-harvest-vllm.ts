import type { HarvestCase } from './fixtures-harvest.js';

// More harvested parser test cases (vLLM: llama3_json, deepseekv3, step3, glm4_moe, kimi_k2,
// deepseekv31, hunyuan_a13b, seed_oss, jamba), in the form of test/toolcalls/fixtures-harvest.ts, which lists them all
// in HARVEST.

const GLM = (name: string, args: Record<string, string>): string => `<tool_call>${name}\n${Object.entries(args).map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`).join('')}</tool_call>`;
const DALLAS_TX_F = { name: 'get_current_weather', args: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' } };
const REGISTER = { name: 'register_user', args: { name: 'John Doe', age: 37, address: { city: 'San Francisco', state: 'CA' }, role: null, passed_test: true, aliases: ['John', 'Johnny'] } };

const VLLM_LLAMA3 = 'vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py@1e499e36';
const SEARCH1 = { name: 'searchTool', args: { query: 'test1' } };
const INCIDENTS = { name: 'getOpenIncidentsTool', args: {} };
const SEARCH2 = { name: 'searchTool', args: { query: 'test2' } };
const THREE = (sep: string): string => ['{"name": "searchTool", "parameters": {"query": "test1"}}', '{"name": "getOpenIncidentsTool", "parameters": {}}', '{"name": "searchTool", "parameters": {"query": "test2"}}'].join(sep);
const TWO = (sep: string): string => `{"name": "searchTool", "parameters": {"query": "test1"}}${sep}{"name": "getOpenIncidentsTool", "parameters": {}}`;

// The Llama 3 JSON tests declare no tools; the called names are declared here. Content is not
// asserted where vLLM drops the prose around the calls (toolgate keeps it).
export const HARVEST_LLAMA3_JSON: HarvestCase[] = [
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_simple`, text: 'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?', calls: [INCIDENTS] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_with_arguments`, text: '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}', calls: [{ name: 'searchTool', args: { query: 'test query', limit: 10 } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_no_json`, text: 'This is just some text without any tool calls', calls: [], content: 'This is just some text without any tool calls', declared: ['searchTool'] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_invalid_json`, text: '{"name": "invalidTool", "parameters": {invalid json}', calls: [], content: '{"name": "invalidTool", "parameters": {invalid json}', declared: ['invalidTool'] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_with_arguments_key`, text: '{"name": "searchTool", "arguments": {"query": "test"}}', calls: [{ name: 'searchTool', args: { query: 'test' } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_multiple_json`, text: THREE('; '), calls: [SEARCH1, INCIDENTS, SEARCH2] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_multiple_json_with_whitespace`, text: THREE(' ; '), calls: [SEARCH1, INCIDENTS, SEARCH2] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_multiple_json_with_surrounding_text`, text: `Here are the results: ${THREE('; ')} Would you like to know more?`, calls: [SEARCH1, INCIDENTS, SEARCH2] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_deeply_nested_json`, text: '{"name": "complexTool", "parameters": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}}', calls: [{ name: 'complexTool', args: { level1: { level2: { level3: { level4: { value: 'deep' } } } } } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_multiple_with_deep_nesting`, text: '{"name": "simpleTool", "parameters": {"value": "test"}}; {"name": "complexTool", "parameters": {"config": {"database": {"connection": {"pool": {"size": 10}}}}}}', calls: [{ name: 'simpleTool', args: { value: 'test' } }, { name: 'complexTool', args: { config: { database: { connection: { pool: { size: 10 } } } } } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_with_quotes_and_brackets_in_string`, text: '{"name": "searchTool", "parameters": {"query": "test {value} [complex]","nested": {"inner": "more {brackets}"}}}', calls: [{ name: 'searchTool', args: { query: 'test {value} [complex]', nested: { inner: 'more {brackets}' } } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_with_escaped_quotes_in_nested_json`, text: '{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}', calls: [{ name: 'parserTool', args: { text: 'He said "Hello {world}"' } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_missing_name_key`, text: '{"parameters": {}}', calls: [], content: '{"parameters": {}}', declared: ['searchTool'] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_missing_parameters_and_arguments_key`, text: '{"name": "toolWithoutParams"}', calls: [], content: '{"name": "toolWithoutParams"}', declared: ['toolWithoutParams'] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_brace_in_trailing_text`, text: '{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.', calls: [{ name: 'searchTool', args: { query: 'test' } }] },
  { source: `${VLLM_LLAMA3} :: test_extract_tool_calls_json_fragment_in_trailing_text`, text: '{"name": "searchTool", "parameters": {"query": "test"}} The arguments I passed were {"query": "test"}', calls: [{ name: 'searchTool', args: { query: 'test' } }] },
  ...['; ', ';', ';\n', '\n'].map((sep) => ({ source: `${VLLM_LLAMA3} :: test_extract_tool_calls_streaming_parallel_separators[${JSON.stringify(sep)}]`, text: TWO(sep), calls: [SEARCH1, INCIDENTS] })),
];

const VLLM_DSV3 = 'vllm-project/vllm tests/tool_parsers/test_deepseekv3_tool_parser.py@0f17ee06';
const DSV3 = (calls: Array<[string, string]>): string => `<｜tool▁calls▁begin｜>${calls.map(([name, args]) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`).join('')}<｜tool▁calls▁end｜>`;
const TYPES_ARGS = { string_field: 'hello', int_field: 42, float_field: 3.14, bool_field: true, null_field: null, array_field: ['a', 'b', 'c'], object_field: { nested: 'value' } };

// vLLM's common parser tests (tests/tool_parsers/common_tests.py): single call (content None),
// parallel calls (names), typed values, empty arguments, surrounding text, escaped strings. They
// declare no tools; the called names are declared here. The malformed inputs assert nothing.
export const HARVEST_DEEPSEEK_V3: HarvestCase[] = [
  { source: `${VLLM_DSV3} :: test_no_tool_calls`, text: 'How can I help you today? I can check weather for you.', calls: [], content: 'How can I help you today? I can check weather for you.', declared: ['get_weather'] },
  { source: `${VLLM_DSV3} :: test_single_tool_call_simple_args`, text: DSV3([['get_weather', '{"city": "Tokyo", "unit": "celsius"}']]), calls: [{ name: 'get_weather', args: { city: 'Tokyo', unit: 'celsius' } }], content: null },
  { source: `${VLLM_DSV3} :: test_parallel_tool_calls`, text: DSV3([['get_weather', '{"city": "Tokyo", "unit": "celsius"}'], ['search_hotels', '{"location": "Tokyo", "check_in": "2025-01-15"}']]), calls: [{ name: 'get_weather', args: { city: 'Tokyo', unit: 'celsius' } }, { name: 'search_hotels', args: { location: 'Tokyo', check_in: '2025-01-15' } }] },
  { source: `${VLLM_DSV3} :: test_various_data_types`, text: DSV3([['test_function', '{"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": true, "null_field": null, "array_field": ["a", "b", "c"], "object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}}']]), calls: [{ name: 'test_function', args: { ...TYPES_ARGS, empty_array: [], empty_object: {} } }] },
  { source: `${VLLM_DSV3} :: test_empty_arguments`, text: DSV3([['get_current_time', '{}']]), calls: [{ name: 'get_current_time', args: {} }] },
  { source: `${VLLM_DSV3} :: test_surrounding_text`, text: `Let me check the weather for you.${DSV3([['get_weather', '{"city": "Paris"}']])}`, calls: [{ name: 'get_weather', args: { city: 'Paris' } }] },
  { source: `${VLLM_DSV3} :: test_escaped_strings`, text: DSV3([['send_message', '{"text": "He said \\"hello\\"", "path": "C:\\\\Users\\\\file", "newline": "line1\\nline2"}']]), calls: [{ name: 'send_message', args: { text: 'He said "hello"', path: 'C:\\Users\\file', newline: 'line1\nline2' } }] },
];

const VLLM_STEP3 = 'vllm-project/vllm tests/tool_parsers/test_step3_tool_parser.py@04b590e6';
const STEP3 = (calls: string[], sep = ''): string => `<｜tool_calls_begin｜>${calls.map((call) => `<｜tool_call_begin｜>${call}<｜tool_call_end｜>`).join(sep)}<｜tool_calls_end｜>`;
const STEP_INVOKE = (name: string, params: Record<string, string>): string => `<steptml:invoke name="${name}">${Object.entries(params).map(([k, v]) => `<steptml:parameter name="${k}">${v}</steptml:parameter>`).join('')}</steptml:invoke>`;
const STEP3_WS_TOOLS = [{ name: 'edit_file', parameters: { type: 'object', properties: { old_string: { type: 'string' }, indent: { type: 'integer' }, enabled: { type: 'boolean' } } } }];
const STEP3_WS = (value: string): string => `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>edit_file\n${STEP_INVOKE('edit_file', { old_string: value, indent: ' 4 ', enabled: ' true ' })}<｜tool_call_end｜><｜tool_calls_end｜>`;

// vLLM marks its own step3 parser xfail on most common tests; the expectations are the tests'.
export const HARVEST_STEP3: HarvestCase[] = [
  { source: `${VLLM_STEP3} :: test_no_tool_calls`, text: 'This is a regular response without any tool calls.', calls: [], content: 'This is a regular response without any tool calls.', declared: ['get_weather'] },
  { source: `${VLLM_STEP3} :: test_single_tool_call_simple_args`, text: STEP3([STEP_INVOKE('get_weather', { city: 'Tokyo' })]), calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }], content: null },
  { source: `${VLLM_STEP3} :: test_parallel_tool_calls`, text: STEP3([STEP_INVOKE('get_weather', { city: 'Tokyo' }), STEP_INVOKE('get_time', { timezone: 'Asia/Tokyo' })], '<｜tool_sep｜>'), calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }, { name: 'get_time', args: { timezone: 'Asia/Tokyo' } }] },
  {
    source: `${VLLM_STEP3} :: test_various_data_types`,
    text: STEP3([STEP_INVOKE('test_function', { string_field: 'hello', int_field: '42', float_field: '3.14', bool_field: 'true', null_field: 'null', array_field: '["a", "b", "c"]', object_field: '{"nested": "value"}' })]),
    calls: [{ name: 'test_function', args: TYPES_ARGS }],
    tools: [{ name: 'test_function', parameters: { type: 'object', properties: { string_field: { type: 'string' }, int_field: { type: 'integer' }, float_field: { type: 'number' }, bool_field: { type: 'boolean' }, null_field: { type: 'null' }, array_field: { type: 'array' }, object_field: { type: 'object' } } } }],
  },
  { source: `${VLLM_STEP3} :: test_empty_arguments`, text: STEP3(['<steptml:invoke name="refresh"></steptml:invoke>']), calls: [{ name: 'refresh', args: {} }] },
  { source: `${VLLM_STEP3} :: test_surrounding_text`, text: `Let me check the weather for you.\n\n${STEP3([STEP_INVOKE('get_weather', { city: 'Tokyo' })])}\n\nI'll get that information.`, calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }] },
  { source: `${VLLM_STEP3} :: test_escaped_strings`, text: STEP3([STEP_INVOKE('test_function', { quoted: 'He said "hello"', path: 'C:\\Users\\file.txt', newline: 'line1\nline2' })]), calls: [{ name: 'test_function', args: { quoted: 'He said "hello"', path: 'C:\\Users\\file.txt', newline: 'line1\nline2' } }] },
  ...['    if x:', 'return 1\n', '    if x:\n        return 1\n', 'hello ', 'hello\u00a0', 'hello'].map((value) => ({ source: `${VLLM_STEP3} :: TestStep3ParameterWhitespace.test_string_value_preserved[${JSON.stringify(value)}]`, text: STEP3_WS(value), calls: [{ name: 'edit_file', args: { old_string: value, indent: 4, enabled: true } }], tools: STEP3_WS_TOOLS })),
];

const VLLM_GLM = 'vllm-project/vllm tests/tool_parsers/test_glm4_moe_tool_parser.py@024364d6';
const GLM_INDENTED = (name: string, args: Record<string, string>): string => `<tool_call>${name}\n${Object.entries(args).map(([k, v]) => `    <arg_key>${k}</arg_key>\n    <arg_value>${v}</arg_value>\n`).join('')}    </tool_call>`;
const WEATHER3 = (city: string, state: string, unit: string) => ({ name: 'get_current_weather', args: { city, state, unit } });
const BEIJING = { name: 'get_weather', args: { city: 'Beijing', date: '2025-08-01' } };

// The test declares get_weather alone but expects calls to other names (vLLM's parser does not
// check names); every called name is declared here. Content is not asserted where vLLM keeps only
// the text before the first call.
export const HARVEST_GLM4_MOE: HarvestCase[] = [
  { source: `${VLLM_GLM} :: test_extract_tool_calls_no_tools`, text: 'This is a test', calls: [], content: 'This is a test', declared: ['get_weather'] },
  { source: `${VLLM_GLM} :: test_extract_tool_calls[single_tool_call]`, text: GLM_INDENTED('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' }), calls: [WEATHER3('Dallas', 'TX', 'fahrenheit')], content: null },
  { source: `${VLLM_GLM} :: test_extract_tool_calls[multiple_tool_calls]`, text: `${GLM_INDENTED('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' })}\n    ${GLM_INDENTED('get_current_weather', { city: 'Orlando', state: 'FL', unit: 'fahrenheit' })}`, calls: [WEATHER3('Dallas', 'TX', 'fahrenheit'), WEATHER3('Orlando', 'FL', 'fahrenheit')], content: null },
  { source: `${VLLM_GLM} :: test_extract_tool_calls[tool_call_with_content_before]`, text: `I'll help you check the weather. ${GLM_INDENTED('get_current_weather', { city: 'Seattle', state: 'WA', unit: 'celsius' })}`, calls: [WEATHER3('Seattle', 'WA', 'celsius')], content: "I'll help you check the weather. " },
  { source: `${VLLM_GLM} :: test_extract_tool_calls[tool_call_with_mixed_args]`, text: GLM_INDENTED('get_current_weather', { city: 'New York', state: 'NY', unit: 'celsius' }), calls: [WEATHER3('New York', 'NY', 'celsius')], content: null },
  { source: `${VLLM_GLM} :: test_extract_tool_calls[tool_call_with_chinese_content]`, text: `I will help you get the weather.${GLM_INDENTED('get_weather', { city: 'Beijing', date: '2025-08-01' })}`, calls: [BEIJING], content: 'I will help you get the weather.' },
  { source: `${VLLM_GLM} :: test_extract_tool_calls_with_thinking_tags`, text: `<think>I want to get the weather.</think>\n\nI will help you get the weather.\n${GLM('get_weather', { city: 'Beijing', date: '2025-08-01' })}`, calls: [BEIJING], content: '<think>I want to get the weather.</think>\n\nI will help you get the weather.\n' },
  { source: `${VLLM_GLM} :: test_extract_tool_calls_empty_arguments`, text: '<tool_call>get_current_time\n</tool_call>', calls: [{ name: 'get_current_time', args: {} }] },
  { source: `${VLLM_GLM} :: test_extract_tool_calls_mixed_content`, text: `I will help you get the weather info.\n\n${GLM('get_weather', { city: 'Beijing', date: '2025-08-01' })}\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n${GLM('get_weather', { city: 'Shanghai', date: '2025-08-01' })}`, calls: [BEIJING, { name: 'get_weather', args: { city: 'Shanghai', date: '2025-08-01' } }] },
  { source: `${VLLM_GLM} :: test_streaming_basic_functionality`, text: GLM('get_weather', { city: 'Beijing' }), calls: [{ name: 'get_weather', args: { city: 'Beijing' } }] },
  { source: `${VLLM_GLM} :: test_extract_tool_calls_special_characters`, text: GLM('send_message', { recipient: 'Amy', message: 'It is a nice day', priority: 'high' }), calls: [{ name: 'send_message', args: { recipient: 'Amy', message: 'It is a nice day', priority: 'high' } }] },
  { source: `${VLLM_GLM} :: test_extract_tool_calls_incomplete_tool_call`, text: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>', calls: [], content: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>', declared: ['get_weather'] },
];

const VLLM_KIMI = 'vllm-project/vllm tests/tool_parsers/test_kimi_k2_tool_parser.py@0825a6c3';
const KIMI_TOOL = (id: string, args: string): string => `<|tool_call_begin|>${id} <|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const KIMI_WRAP = (...tools: string[]): string => `<|tool_calls_section_begin|>${tools.join('')}<|tool_calls_section_end|>`;
/** The test's streamed deltas joined: a space after the id and after the arguments. */
const KIMI_DELTAS = (content: string, tools: Array<[string, string]>): string => `${content}<|tool_calls_section_begin|>${tools.map(([id, args]) => `<|tool_call_begin|>${id} <|tool_call_argument_begin|>${args} <|tool_call_end|>`).join('')}<|tool_calls_section_end|>`;
const KIMI_OBJECT = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const KIMI_WEATHER_TOOL = { name: 'get_weather', parameters: KIMI_OBJECT({ city: { type: 'string' }, unit: { type: 'string' } }) };
const KIMI_READ_FILE_TOOL = { name: 'read_file', parameters: KIMI_OBJECT({ path: { type: 'string' } }) };
const KIMI_BOOK_FLIGHT_TOOL = { name: 'book_flight', parameters: KIMI_OBJECT({ city: { type: 'string' } }) };
const TOKYO_C = { name: 'get_weather', args: { city: 'Tokyo', unit: 'celsius' } };

// Tests without tools of their own get one per called name. Kimi's ids are not compared (toolgate
// gives text calls fresh ids).
export const HARVEST_KIMI_K2: HarvestCase[] = [
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_no_tools`, text: 'This is a test', calls: [], content: 'This is a test', declared: ['get_weather'] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[single_tool_call]`, text: `I'll check. ${KIMI_WRAP(KIMI_TOOL('functions.get_weather:0', '{"city": "Beijing"}'))}`, calls: [{ name: 'get_weather', args: { city: 'Beijing' } }], content: "I'll check. " },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[parallel_tool_calls]`, text: `Compare weather. ${KIMI_WRAP(KIMI_TOOL('functions.get_weather:0', '{"city": "Beijing"}'), KIMI_TOOL('functions.get_weather:1', '{"city": "Shanghai"}'))}`, calls: [{ name: 'get_weather', args: { city: 'Beijing' } }, { name: 'get_weather', args: { city: 'Shanghai' } }], content: 'Compare weather. ' },
  {
    source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[three_tool_calls]`,
    text: `Multiple tasks. ${KIMI_WRAP(KIMI_TOOL('functions.get_weather:0', '{"city": "New York"}'), KIMI_TOOL('functions.get_news:1', '{"topic": "technology"}'), KIMI_TOOL('functions.send_email:2', '{"to": "user@example.com", "subject": "Daily Update"}'))}`,
    calls: [{ name: 'get_weather', args: { city: 'New York' } }, { name: 'get_news', args: { topic: 'technology' } }, { name: 'send_email', args: { to: 'user@example.com', subject: 'Daily Update' } }],
    content: 'Multiple tasks. ',
  },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[angle_brackets_in_json]`, text: `Process HTML. ${KIMI_WRAP(KIMI_TOOL('functions.process_html:0', '{"html": "<div>content</div>"}'))}`, calls: [{ name: 'process_html', args: { html: '<div>content</div>' } }], content: 'Process HTML. ' },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[multiline_json]`, text: `Formatted. ${KIMI_WRAP(KIMI_TOOL('functions.process_data:0', '{\n  "name": "test",\n  "value": 123\n}'))}`, calls: [{ name: 'process_data', args: { name: 'test', value: 123 } }], content: 'Formatted. ' },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[no_functions_prefix]`, text: `No prefix. ${KIMI_WRAP(KIMI_TOOL('get_weather:0', '{"city": "Tokyo"}'))}`, calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }], content: 'No prefix. ' },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_extract_tool_calls[empty_arguments]`, text: `Empty args. ${KIMI_WRAP(KIMI_TOOL('functions.test:0', '{}'))}`, calls: [{ name: 'test', args: {} }], content: 'Empty args. ' },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_invalid_json_still_extracted`, text: `Help. ${KIMI_WRAP(KIMI_TOOL('functions.bad:0', '{"city": "Beijing"'), KIMI_TOOL('functions.good:1', '{"city": "Shanghai"}'))}`, calls: [{ name: 'bad', args: { city: 'Beijing' } }, { name: 'good', args: { city: 'Shanghai' } }] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_invalid_funcall_id_skipped`, text: `Help. ${KIMI_WRAP(KIMI_TOOL('functions.invalid.0', '{"city": "Beijing"}'), KIMI_TOOL('functions.valid:1', '{"city": "Shanghai"}'))}`, calls: [{ name: 'valid', args: { city: 'Shanghai' } }], declared: ['invalid'] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_native_id_extracted`, text: `Checking weather. ${KIMI_WRAP(KIMI_TOOL('functions.get_weather:0', '{"city": "Tokyo"}'))}`, calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_bare_counter`, text: `Let me check. ${KIMI_WRAP(KIMI_TOOL('0', '{"city": "Tokyo", "unit": "celsius"}'))}`, calls: [TOKYO_C], content: 'Let me check. ', tools: [KIMI_WEATHER_TOOL] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_bare_counter_single_tool_invalid_json_still_extracted`, text: `Let me check. ${KIMI_WRAP(KIMI_TOOL('0', '{"city": "Tokyo"'))}`, calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }], tools: [KIMI_WEATHER_TOOL] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_bare_counter_multiple_tools_infers_by_args`, text: `Let me check. ${KIMI_WRAP(KIMI_TOOL('0', '{"city": "Tokyo", "unit": "celsius"}'))}`, calls: [TOKYO_C], tools: [KIMI_READ_FILE_TOOL, KIMI_WEATHER_TOOL] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_bare_counter_multiple_tools_skips_unsafe_inference[ambiguous]`, text: `Let me check. ${KIMI_WRAP(KIMI_TOOL('0', '{"city": "Tokyo"}'))}`, calls: [], tools: [KIMI_WEATHER_TOOL, KIMI_BOOK_FLIGHT_TOOL] },
  { source: `${VLLM_KIMI} :: TestExtractToolCalls.test_bare_counter_multiple_tools_skips_unsafe_inference[malformed_json]`, text: `Let me check. ${KIMI_WRAP(KIMI_TOOL('0', '{"city": "Tokyo"'))}`, calls: [], tools: [KIMI_WEATHER_TOOL, KIMI_BOOK_FLIGHT_TOOL] },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_single_tool_call`, text: KIMI_DELTAS("I'll help. ", [['functions.get_weather:0', '{"city": "Beijing"}']]), calls: [{ name: 'get_weather', args: { city: 'Beijing' } }] },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_multiple_tool_calls`, text: KIMI_DELTAS('Compare weather. ', [['functions.get_weather:0', '{"city": "Tokyo"}'], ['functions.get_weather:1', '{"city": "NYC"}']]), calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }, { name: 'get_weather', args: { city: 'NYC' } }] },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_bare_counter`, text: KIMI_DELTAS("I'll help. ", [['0', '{"city": "Beijing"}']]), calls: [{ name: 'get_weather', args: { city: 'Beijing' } }], tools: [KIMI_WEATHER_TOOL] },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_bare_counter_multiple_tools_infers_by_args`, text: KIMI_DELTAS("I'll help. ", [['0', '{"city": "Beijing", "unit": "celsius"}']]), calls: [{ name: 'get_weather', args: { city: 'Beijing', unit: 'celsius' } }], tools: [KIMI_READ_FILE_TOOL, KIMI_WEATHER_TOOL] },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_content_before_tools`, text: KIMI_DELTAS("I'll check the weather. ", [['functions.get_weather:0', '{"city": "Tokyo"}']]), calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }], content: "I'll check the weather. " },
  { source: `${VLLM_KIMI} :: TestStreamingHappyPath.test_no_tool_calls`, text: 'This is just regular text without tools.', calls: [], content: 'This is just regular text without tools.', declared: ['get_weather'] },
];

const VLLM_DSV31 = 'vllm-project/vllm tests/tool_parsers/test_deepseekv31_tool_parser.py@100fe7e0';
const DSV31 = (calls: Array<[string, string]>): string => `<｜tool▁calls▁begin｜>${calls.map(([name, args]) => `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${args}<｜tool▁call▁end｜>`).join('')}<｜tool▁calls▁end｜>`;

// Content is not asserted where vLLM drops the text after the calls (toolgate keeps it).
export const HARVEST_DEEPSEEK_V31: HarvestCase[] = [
  { source: `${VLLM_DSV31} :: test_extract_tool_calls_with_tool`, text: `normal text${DSV31([['foo', '{"x":1}']])}`, calls: [{ name: 'foo', args: { x: 1 } }], content: 'normal text' },
  { source: `${VLLM_DSV31} :: test_extract_tool_calls_with_multiple_tools`, text: `some prefix text${DSV31([['foo', '{"x":1}'], ['bar', '{"y":2}']])} some suffix text`, calls: [{ name: 'foo', args: { x: 1 } }, { name: 'bar', args: { y: 2 } }] },
  { source: `${VLLM_DSV31} :: test_extract_tool_calls_unparsable_block[cut off]`, text: 'Let me look that up.<｜tool▁calls▁begin｜>get_weather', calls: [], content: 'Let me look that up.<｜tool▁calls▁begin｜>get_weather', declared: ['get_weather'] },
  { source: `${VLLM_DSV31} :: test_extract_tool_calls_unparsable_block[no call markers]`, text: '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>', calls: [], content: '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>', declared: ['foo'] },
];

const VLLM_A13B = 'vllm-project/vllm tests/tool_parsers/test_hunyuan_a13b_tool_parser.py@10a67515';
const A13B = (calls: string): string => `<tool_calls>[${calls}]</tool_calls>`;
const SF_CELSIUS = { name: 'get_weather', args: { city: 'San Francisco', metric: 'celsius' } };
const COMPLEX = { name: 'complex_tool', args: { level1: { level2: { level3: { value: 123 } } } } };

// Content is not asserted where vLLM strips the text after the calls (toolgate keeps it).
export const HARVEST_HUNYUAN_A13B: HarvestCase[] = [
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[no tool call]`, text: 'How can I help you today?', calls: [], content: 'How can I help you today?', declared: ['get_weather'] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[single]`, text: A13B('{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}'), calls: [SF_CELSIUS], content: null },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[multiple]`, text: A13B(`{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, {"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}`), calls: [SF_CELSIUS, REGISTER], content: null },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[content before]`, text: `I will call the tool now. ${A13B('{"name": "get_weather", "arguments": {"city": "Boston"}}')}`, calls: [{ name: 'get_weather', args: { city: 'Boston' } }], content: 'I will call the tool now. ' },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[content after]`, text: `${A13B('{"name": "get_weather", "arguments": {"city": "Seattle"}}')}\nThank you!`, calls: [{ name: 'get_weather', args: { city: 'Seattle' } }] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_extract[nested]`, text: A13B('{"name": "complex_tool", "arguments": {"level1": {"level2": {"level3": {"value": 123}}}}}'), calls: [COMPLEX], content: null },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming[0]`, text: A13B('{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}'), calls: [SF_CELSIUS] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming[1]`, text: A13B('{"name": "get_weather", "arguments": {"city": "Boston"}}'), calls: [{ name: 'get_weather', args: { city: 'Boston' } }] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming[2]`, text: `${A13B('{"name": "get_weather", "arguments": {"city": "Boston"}}')}\n</answer>`, calls: [{ name: 'get_weather', args: { city: 'Boston' } }] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming[3] (xfail in vLLM)`, text: A13B('{"name": "complex_tool", "arguments":  {"level1": {"level2": {"level3": {"value": 123}}}}}'), calls: [COMPLEX] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_non_ascii`, text: A13B('{"name": "get_weather", "arguments": {"city": "北京"}}'), calls: [{ name: 'get_weather', args: { city: '北京' } }] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[first]`, text: A13B('{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}'), calls: [{ name: 'a', args: {} }, { name: 'b', args: { x: 42 } }] },
  { source: `${VLLM_A13B} :: test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[last]`, text: A13B('{"name": "a", "arguments": {"x": 42}}, {"name": "b", "arguments": {}}'), calls: [{ name: 'a', args: { x: 42 } }, { name: 'b', args: {} }] },
];

const VLLM_SEED = 'vllm-project/vllm tests/tool_parsers/test_seed_oss_tool_parser.py@0f120751';
const SEED_TOOLS = [{ name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } }, required: ['location'], additionalProperties: false } }];
const SEED_CALL = (params: string): string => `<seed:tool_call>\n<function=get_weather>\n${params}</function>\n</seed:tool_call>`;
const SEED_BARCELONA = SEED_CALL('<parameter=location>Barcelona, Spain</parameter>\n');
const SEED_THINK_512 = "<seed:think>The user's current thinking budget is 512.</seed:cot_budget_reflect>\nLet me analyze the question. The user wants to know the weather in Barcelona, Spain. Looking at the functions available, there's a get_weather function that can retrieve the current temperature for a given location. \n\nFirst, check the parameters required by get_weather: location is mandatory (needs city and country), and unit is optional. The user provided \"Barcelona Spain\" as the location, which fits the required format (city, country). \n<seed:cot_budget_reflect>I have used 131 tokens, and there are 381 tokens remaining for use.</seed:cot_budget_reflect>\n Since the unit isn't specified, the function will default to Celsius, which is fine. \n\nThere's no need to ask for more information because the location is clear. So I should call the get_weather function with location set to \"Barcelona, Spain\" (adding a comma for clarity, though the user's input has a space, but the function might accept either; to be safe, using the standard format with a comma).\n<seed:cot_budget_reflect>I have used 257 tokens, and there are 255 tokens remaining for use.</seed:cot_budget_reflect>\n The unit parameter can be omitted since it's optional.</seed:think>\n";
const SEED_THINK_UNLIMITED = "<seed:think>\nGot it, let's see. The user asked for the weather in Barcelona, Spain. First, I need to remember the function I can use: get_weather. The function requires a location (city and country) which is \"Barcelona, Spain\" here, and unit is optional. Since the user didn't specify the unit, the default in the function is Celsius, right? Wait, let me check the function docstring again. Oh, the function says unit is optional, and returns temperature in Celsius. So I should call get_weather with location \"Barcelona, Spain\" and maybe omit unit or set to Celsius. Let me format the function call correctly. The format is <seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>. Wait, but does the unit parameter accept \"celsius\"? The docstring says unit is the unit of temperature, but the return is in Celsius anyway. Maybe even if I don't pass unit, it's okay, but to be explicit, maybe pass \"celsius\". Let me go with that. So the function call should be as above. Then wait for the result to come back and tell the user the temperature in Celsius.</seed:think>";

// Content keeps the reasoning: these tests read it as content, as toolgate's default reasoning mode does.
export const HARVEST_SEED_OSS: HarvestCase[] = [
  { source: `${VLLM_SEED} :: test_extract_tool_calls_no_tools`, text: 'This is a test response without any tool calls', calls: [], content: 'This is a test response without any tool calls', tools: SEED_TOOLS },
  { source: `${VLLM_SEED} :: test_extract_tool_calls[tool_call_0_thinking_budget]`, text: SEED_BARCELONA, calls: [{ name: 'get_weather', args: { location: 'Barcelona, Spain' } }], content: null, tools: SEED_TOOLS },
  { source: `${VLLM_SEED} :: test_extract_tool_calls[tool_call_512_thinkg_budget]`, text: SEED_THINK_512 + SEED_BARCELONA, calls: [{ name: 'get_weather', args: { location: 'Barcelona, Spain' } }], content: SEED_THINK_512, tools: SEED_TOOLS },
  {
    source: `${VLLM_SEED} :: test_extract_tool_calls[tool_call_unlimited_thinking_budget]`,
    text: SEED_THINK_UNLIMITED + SEED_CALL('<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n'),
    calls: [{ name: 'get_weather', args: { location: 'Barcelona, Spain', unit: 'celsius' } }],
    content: SEED_THINK_UNLIMITED,
    tools: SEED_TOOLS,
  },
];

const VLLM_JAMBA = 'vllm-project/vllm tests/tool_parsers/test_jamba_tool_parser.py@045d7575';
const JAMBA_DALLAS = '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}';
const JAMBA_ORLANDO = '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}';

export const HARVEST_JAMBA: HarvestCase[] = [
  { source: `${VLLM_JAMBA} :: test_extract_tool_calls_no_tools`, text: 'This is a test', calls: [], content: 'This is a test', declared: ['get_current_weather'] },
  { source: `${VLLM_JAMBA} :: test_extract_tool_calls[single_tool]`, text: ` <tool_calls>[\n    ${JAMBA_DALLAS}\n]</tool_calls>`, calls: [DALLAS_TX_F], content: null },
  { source: `${VLLM_JAMBA} :: test_extract_tool_calls[single_tool_with_content]`, text: ` Sure! let me call the tool for you.<tool_calls>[\n    ${JAMBA_DALLAS}\n]</tool_calls>`, calls: [DALLAS_TX_F], content: ' Sure! let me call the tool for you.' },
  { source: `${VLLM_JAMBA} :: test_extract_tool_calls[parallel_tools]`, text: ` <tool_calls>[\n    ${JAMBA_DALLAS},\n    ${JAMBA_ORLANDO}\n]</tool_calls>`, calls: [DALLAS_TX_F, { name: 'get_current_weather', args: { city: 'Orlando', state: 'FL', unit: 'fahrenheit' } }], content: null },
  { source: `${VLLM_JAMBA} :: test_extract_tool_calls_streaming_arguments_in_single_delta`, text: '<tool_calls>[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}]</tool_calls>', calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }] },
];
