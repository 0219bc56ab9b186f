// Model outputs harvested from the parser test suites of vLLM and SGLang (Apache-2.0), with what
// those tests expect. Each case names its file, the commit it was read at, and the test. The
// text and the expected calls are the test's own; the tools are the test's when it declares any,
// else one tool per called name typed from the expected arguments (toolgate only takes calls to
// declared tools). test/toolcalls/harvest.test.ts checks them all, whole and streamed.

import { HARVEST_LLAMA3_JSON, HARVEST_DEEPSEEK_V3, HARVEST_STEP3, HARVEST_GLM4_MOE, HARVEST_KIMI_K2, HARVEST_DEEPSEEK_V31, HARVEST_HUNYUAN_A13B, HARVEST_SEED_OSS, HARVEST_JAMBA } from './fixtures-harvest-vllm.js';

export interface HarvestCase {
  /** repository path@commit :: test */
  source: string;
  text: string;
  /** The calls the test expects ([]: none). */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** The content the test expects (compared trimmed; absent: not asserted). */
  content?: string | null;
  /** The test's own tool declarations, when its expectations depend on them. */
  tools?: Array<{ name: string; parameters?: Record<string, unknown> }>;
  /** Tools declared besides the called ones (names only). */
  declared?: string[];
}

const VLLM_LFM2 = 'vllm-project/vllm tests/tool_parsers/test_lfm2_tool_parser.py@011cde7c';
const LFM2 = (body: string, after = ''): string => `<|tool_call_start|>[${body}]<|tool_call_end|>${after ? `\n${after}` : ''}`;
const CANDIDATE = { name: 'get_candidate_status', args: { candidate_id: '12345' } };
const REGISTER = { name: 'register_user', args: { name: 'John Doe', age: 37, address: { city: 'San Francisco', state: 'CA' }, role: null, passed_test: true, aliases: ['John', 'Johnny'] } };
const REGISTER_TEXT = "register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])";
const GROCERY_TEXT = "grocery.orderIngredients(ingredientList=[{'name': 'Lasagna noodles', 'amount': 250, 'unit': 'g'}], deliveryAddress='845 Willow Lane, Springfield, IL 62704')";
const GROCERY = { name: 'grocery.orderIngredients', args: { ingredientList: [{ name: 'Lasagna noodles', amount: 250, unit: 'g' }], deliveryAddress: '845 Willow Lane, Springfield, IL 62704' } };

export const HARVEST_LFM2: HarvestCase[] = [
  { source: `${VLLM_LFM2} :: test_no_tool_call`, text: 'How can I help you today?', calls: [], declared: ['get_weather'] },
  { source: `${VLLM_LFM2} :: simple`, text: LFM2("get_candidate_status(candidate_id='12345')"), calls: [CANDIDATE], content: null },
  { source: `${VLLM_LFM2} :: more_types`, text: LFM2(REGISTER_TEXT), calls: [REGISTER], content: null },
  { source: `${VLLM_LFM2} :: parameterless`, text: LFM2('get_weather()'), calls: [{ name: 'get_weather', args: {} }], content: null },
  { source: `${VLLM_LFM2} :: empty_dict`, text: LFM2('do_something_cool(additional_data={})'), calls: [{ name: 'do_something_cool', args: { additional_data: {} } }] },
  { source: `${VLLM_LFM2} :: empty_list`, text: LFM2('do_something_cool(steps=[])'), calls: [{ name: 'do_something_cool', args: { steps: [] } }] },
  { source: `${VLLM_LFM2} :: escaped_string`, text: LFM2(String.raw`get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')`), calls: [{ name: 'get_weather', args: { city: "Martha's Vineyard", metric: '"cool units"' } }] },
  { source: `${VLLM_LFM2} :: parallel_calls`, text: LFM2(`get_candidate_status(candidate_id='12345'), ${REGISTER_TEXT}`), calls: [CANDIDATE, REGISTER] },
  { source: `${VLLM_LFM2} :: content_after_tool_call`, text: LFM2("get_candidate_status(candidate_id='12345')", 'Checking the current status of candidate ID 12345.'), calls: [CANDIDATE], content: 'Checking the current status of candidate ID 12345.' },
  { source: `${VLLM_LFM2} :: dotted_name`, text: LFM2(GROCERY_TEXT), calls: [GROCERY] },
  { source: `${VLLM_LFM2} :: bracket_in_string`, text: LFM2(`exec(command='grep -F "]" log.txt')`), calls: [{ name: 'exec', args: { command: 'grep -F "]" log.txt' } }] },
  { source: `${VLLM_LFM2} :: multiline_string_arg`, text: LFM2("exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')"), calls: [{ name: 'exec', args: { command: 'cat > f.py << EOF\nimport csv\nprint(1)\nEOF' } }] },
  { source: `${VLLM_LFM2} :: set_arg`, text: LFM2("label(tags={'urgent', 'bug'})"), calls: [{ name: 'label', args: { tags: ['urgent', 'bug'] } }] },
  { source: `${VLLM_LFM2} :: nested_quote`, text: LFM2("bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')"), calls: [{ name: 'bash', args: { command: "sed -n '360,450p' /testbed/sympy/matrices/common.py" } }] },
  { source: `${VLLM_LFM2} :: nested_python_c`, text: LFM2("bash(command='cd /testbed && python3 -c \"from sympy import latex\nprint(latex(3*x, mul_symbol='\\,'))\"')"), calls: [{ name: 'bash', args: { command: "cd /testbed && python3 -c \"from sympy import latex\nprint(latex(3*x, mul_symbol='\\,'))\"" } }] },
  { source: `${VLLM_LFM2} :: leading_zero_int`, text: LFM2('set_date(month=07, day=05)'), calls: [{ name: 'set_date', args: { month: 7, day: 5 } }] },
  { source: `${VLLM_LFM2} :: nul_byte_string_arg`, text: LFM2("exec(command='printf a\u0000b')"), calls: [{ name: 'exec', args: { command: 'printf a\u0000b' } }] },
  { source: `${VLLM_LFM2} :: test_empty_tool_call_block ''`, text: '<|tool_call_start|>[]<|tool_call_end|>', calls: [], declared: ['get_weather'] },
  { source: `${VLLM_LFM2} :: test_empty_tool_call_block ' '`, text: '<|tool_call_start|>[ ]<|tool_call_end|>', calls: [], declared: ['get_weather'] },
  { source: `${VLLM_LFM2} :: test_bad_sibling_call_does_not_drop_good_calls`, text: LFM2("get_candidate_status(candidate_id='12345'), bad(x=b'z')"), calls: [CANDIDATE], declared: ['bad'] },
  { source: `${VLLM_LFM2} :: test_whitespace_after_start_token`, text: "<|tool_call_start|> [get_candidate_status(candidate_id='12345')]<|tool_call_end|>", calls: [CANDIDATE] },
  { source: `${VLLM_LFM2} :: test_streaming_tool_call_with_large_steps`, text: LFM2("get_candidate_status(candidate_id='12345'), get_weather(), do_something_cool(steps=[])"), calls: [CANDIDATE, { name: 'get_weather', args: {} }, { name: 'do_something_cool', args: { steps: [] } }] },
  { source: `${VLLM_LFM2} :: test_streaming_full_block_and_trailing_in_single_delta`, text: LFM2("get_candidate_status(candidate_id='12345')", 'Done.'), calls: [CANDIDATE], content: 'Done.' },
  { source: `${VLLM_LFM2} :: test_streaming_leading_content_and_full_block_in_single_delta`, text: `Let me check. ${LFM2("get_candidate_status(candidate_id='12345')")}`, calls: [CANDIDATE], content: 'Let me check.' },
  { source: `${VLLM_LFM2} :: test_streaming_leading_block_and_trailing_in_single_delta`, text: `Let me check. ${LFM2("get_candidate_status(candidate_id='12345')", 'Done.')}`, calls: [CANDIDATE], content: 'Let me check. \nDone.' },
  {
    source: `${VLLM_LFM2} :: test_echoed_tool_call_body_not_leaked_to_content`,
    text: "<|tool_call_start|>[grocery.orderIngredients(ingredientList=[{'name': 'apple', 'quantity': '2'}], deliveryAddress='123 Main St')]<|tool_call_end|>[grocery.orderIngredients(ingredientList=[{'name': 'apple', 'quantity': '2'}], deliveryAddress='123 Main St')]<|tool_call_end|>",
    calls: [{ name: 'grocery.orderIngredients', args: { ingredientList: [{ name: 'apple', quantity: '2' }], deliveryAddress: '123 Main St' } }],
    content: null,
  },
  {
    source: `${VLLM_LFM2} :: test_streaming_char_by_char_multi_dict_list`,
    text: '<|tool_call_start|>[grocery.orderIngredients(ingredientList=[{"name": "apple", "quantity": "2"}, {"name": "bread", "quantity": "1"}])]<|tool_call_end|>',
    calls: [{ name: 'grocery.orderIngredients', args: { ingredientList: [{ name: 'apple', quantity: '2' }, { name: 'bread', quantity: '1' }] } }],
  },
];


const VLLM_M2 = 'vllm-project/vllm tests/tool_parsers/test_minimax_m2_tool_parser.py@0c927c34';
const M2 = (body: string): string => `<minimax:tool_call>${body}</minimax:tool_call>`;
const INVOKE = (name: string, params: Record<string, string>): string => `<invoke name="${name}">${Object.entries(params).map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join('')}</invoke>`;
const NULLABLE = (name: string, key: string, type: string) => [{ name, parameters: { type: 'object', properties: { [key]: { anyOf: [{ type }, { type: 'null' }] } } } }];

export const HARVEST_MINIMAX_M2: HarvestCase[] = [
  { source: `${VLLM_M2} :: test_plain_content`, text: 'Hello world', calls: [], declared: ['get_weather'] },
  { source: `${VLLM_M2} :: test_content_before_tool_call`, text: `Let me check. ${M2(INVOKE('get_weather', { city: 'Seattle' }))}`, calls: [{ name: 'get_weather', args: { city: 'Seattle' } }], content: 'Let me check.' },
  { source: `${VLLM_M2} :: test_single_chunk_complete`, text: M2(INVOKE('get_weather', { city: 'Seattle' })), calls: [{ name: 'get_weather', args: { city: 'Seattle' } }], content: null },
  { source: `${VLLM_M2} :: test_multiple_params (no schema: text)`, text: M2(INVOKE('get_weather', { city: 'Seattle', days: '5' })), calls: [{ name: 'get_weather', args: { city: 'Seattle', days: '5' } }] },
  { source: `${VLLM_M2} :: test_two_invokes_incremental`, text: M2(INVOKE('search_web', { query: 'OpenAI' }) + INVOKE('search_web', { query: 'Gemini' })), calls: [{ name: 'search_web', args: { query: 'OpenAI' } }, { name: 'search_web', args: { query: 'Gemini' } }] },
  { source: `${VLLM_M2} :: test_two_invokes_in_single_delta`, text: M2(INVOKE('fn_a', { x: '1' }) + INVOKE('fn_b', { y: '2' })), calls: [{ name: 'fn_a', args: { x: '1' } }, { name: 'fn_b', args: { y: '2' } }] },
  { source: `${VLLM_M2} :: test_different_functions`, text: M2(INVOKE('get_weather', { city: 'NYC' }) + INVOKE('get_stock', { ticker: 'AAPL' })), calls: [{ name: 'get_weather', args: { city: 'NYC' } }, { name: 'get_stock', args: { ticker: 'AAPL' } }] },
  { source: `${VLLM_M2} :: test_eos_after_tool_calls`, text: M2(INVOKE('fn', { k: 'v' })), calls: [{ name: 'fn', args: { k: 'v' } }] },
  { source: `${VLLM_M2} :: test_anyof_nullable_param_non_null_value`, text: M2(INVOKE('update_profile', { nickname: 'Alice' })), calls: [{ name: 'update_profile', args: { nickname: 'Alice' } }], tools: NULLABLE('update_profile', 'nickname', 'string') },
  { source: `${VLLM_M2} :: test_anyof_nullable_param_null_value`, text: M2(INVOKE('update_profile', { nickname: 'null' })), calls: [{ name: 'update_profile', args: { nickname: null } }], tools: NULLABLE('update_profile', 'nickname', 'string') },
  { source: `${VLLM_M2} :: test_anyof_nullable_param_object_value`, text: M2(INVOKE('update_settings', { config: '{"theme": "dark", "fontSize": 14}' })), calls: [{ name: 'update_settings', args: { config: { theme: 'dark', fontSize: 14 } } }], tools: NULLABLE('update_settings', 'config', 'object') },
];

const VLLM_HERMES = 'vllm-project/vllm tests/tool_parsers/test_hermes_tool_parser.py@0eb73d6a';

export const HARVEST_HERMES: HarvestCase[] = [
  { source: `${VLLM_HERMES} :: test_hermes_parser_streaming_just_forward_text`, text: 'This is some prior text that has nothing to do with tool calling.', calls: [], declared: ['final_answer'] },
  { source: `${VLLM_HERMES} :: test_hermes_parser_streaming_failure_case_bug_19056`, text: '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>', calls: [{ name: 'final_answer', args: { trigger: true } }], content: null },
  { source: `${VLLM_HERMES} :: test_hermes_parser_streaming`, text: '<tool_call>{"name": "get_current_temperature","arguments": {"location":"San Francisco, California, United States", "unit": "celsius"}}</tool_call>', calls: [{ name: 'get_current_temperature', args: { location: 'San Francisco, California, United States', unit: 'celsius' } }] },
  { source: `${VLLM_HERMES} :: test_hermes_streaming_content_then_tool_call_with_stream_interval`, text: 'Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>', calls: [{ name: 'get_weather', args: { city: 'NYC' } }], content: 'Sure, let me check the weather.' },
  { source: `${VLLM_HERMES} :: test_hermes_streaming_multiple_tool_calls_with_stream_interval`, text: '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call><tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>', calls: [{ name: 'search', args: { q: 'cats' } }, { name: 'search', args: { q: 'dogs' } }] },
  { source: `${VLLM_HERMES} :: test_hermes_parser_non_streaming_tool_call_until_eos`, text: '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}', calls: [{ name: 'final_answer', args: { trigger: true } }] },
  { source: `${VLLM_HERMES} :: test_hermes_parser_non_streaming_tool_call_invalid_json`, text: '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}', calls: [], declared: ['final_answer'] },
  { source: `${VLLM_HERMES} :: test_hermes_parser_non_streaming_serialized_arguments`, text: '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>', calls: [{ name: 'get_db_config', args: { param: 'max_connections' } }], content: null },
  { source: `${VLLM_HERMES} :: test_hermes_streaming_serialized_arguments_with_stream_interval`, text: '<tool_call>{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>', calls: [{ name: 'get_db_config', args: { param: 'max_connections' } }] },
  { source: `${VLLM_HERMES} :: test_hermes_streaming_content_and_tool_call_in_single_chunk`, text: 'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', calls: [{ name: 'f', args: { x: 1 } }], content: 'Hi!' },
];

const SGL = 'sgl-project/sglang test/srt/test_function_call_parser.py@03400a9e';
const SGL_PY_TOOLS = [
  { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } },
  { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
];
const SGL_MISTRAL_TOOLS = [{ name: 'make_next_step_decision', parameters: { type: 'object', properties: { decision: { type: 'string' }, content: { type: 'string' } }, required: ['decision', 'content'] } }];

export const HARVEST_SGLANG: HarvestCase[] = [
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_no_brackets`, text: 'This is just normal text without any tool calls.', calls: [], tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_complete_tool_call`, text: "Here's a tool call: [get_weather(location='New York', unit='celsius')]", calls: [{ name: 'get_weather', args: { location: 'New York', unit: 'celsius' } }], content: "Here's a tool call:", tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_text_before_tool_call`, text: "This is some text before [get_weather(location='London')]", calls: [{ name: 'get_weather', args: { location: 'London' } }], content: 'This is some text before', tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_partial_tool_call`, text: "Let me check the weather: [get_weather(location='Paris')]", calls: [{ name: 'get_weather', args: { location: 'Paris' } }], content: 'Let me check the weather:', tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_bracket_without_text_before`, text: "[search(query='python programming')]", calls: [{ name: 'search', args: { query: 'python programming' } }], content: null, tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_text_after_tool_call`, text: "[get_weather(location='Tokyo')] Here's the forecast:", calls: [{ name: 'get_weather', args: { location: 'Tokyo' } }], content: "Here's the forecast:", tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_nested_brackets`, text: "[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]", calls: [{ name: 'get_weather', args: { location: 'New York', unit: 'celsius', data: [1, 2, 3] } }], tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_nested_brackets_dict`, text: "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]", calls: [{ name: 'search', args: { query: 'test', config: { options: [1, 2], nested: { key: 'value' } } } }], tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_multiple_tools_with_nested_brackets`, text: "[get_weather(location='Paris', data=[10, 20]), search(query='test', filters=['a', 'b'])]", calls: [{ name: 'get_weather', args: { location: 'Paris', data: [10, 20] } }, { name: 'search', args: { query: 'test', filters: ['a', 'b'] } }], tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_partial_nested_brackets`, text: "Here's a call: [get_weather(location='Tokyo', data=[1, 2, 3])]", calls: [{ name: 'get_weather', args: { location: 'Tokyo', data: [1, 2, 3] } }], content: "Here's a call:", tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_parse_streaming_with_python_start_and_end_token`, text: "Here's a call: <|python_start|>[get_weather(location='Tokyo', data=[1, 2, 3])]<|python_end|>", calls: [{ name: 'get_weather', args: { location: 'Tokyo', data: [1, 2, 3] } }], content: "Here's a call:", tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestPythonicDetector.test_detect_and_parse_with_python_start_and_end_token`, text: "User wants to get the weather in Mars. <|python_start|>[get_weather(location='Mars', unit='celsius')]<|python_end|> In this way we will get the weather in Mars.", calls: [{ name: 'get_weather', args: { location: 'Mars', unit: 'celsius' } }], content: 'User wants to get the weather in Mars.  In this way we will get the weather in Mars.', tools: SGL_PY_TOOLS },
  { source: `${SGL} :: TestMistralDetector.test_detect_and_parse_with_nested_brackets_in_content`, text: '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"","content":"```\\nTOOL: Access a weather API or service\\nOBSERVATION: Retrieve the current weather data for the top 5 populated cities in the US\\nANSWER: The weather in the top 5 populated cities in the US is as follows: [City Name] - [Weather Conditions] - [Temperature]\\n```"}}]', calls: [{ name: 'make_next_step_decision', args: { decision: '', content: '```\nTOOL: Access a weather API or service\nOBSERVATION: Retrieve the current weather data for the top 5 populated cities in the US\nANSWER: The weather in the top 5 populated cities in the US is as follows: [City Name] - [Weather Conditions] - [Temperature]\n```' } }], content: null, tools: SGL_MISTRAL_TOOLS },
  { source: `${SGL} :: TestMistralDetector.test_detect_and_parse_simple_case`, text: '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"TOOL", "content":"Use weather API"}}]', calls: [{ name: 'make_next_step_decision', args: { decision: 'TOOL', content: 'Use weather API' } }], tools: SGL_MISTRAL_TOOLS },
  { source: `${SGL} :: TestMistralDetector.test_detect_and_parse_no_tool_calls`, text: 'This is just normal text without any tool calls.', calls: [], tools: SGL_MISTRAL_TOOLS },
  { source: `${SGL} :: TestMistralDetector.test_detect_and_parse_with_text_before_tool_call`, text: 'Here is some text before the tool call: [TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"ANSWER", "content":"The answer is 42"}}]', calls: [{ name: 'make_next_step_decision', args: { decision: 'ANSWER', content: 'The answer is 42' } }], content: 'Here is some text before the tool call:', tools: SGL_MISTRAL_TOOLS },
];

const VLLM_QWEN3 = 'vllm-project/vllm tests/tool_parsers/test_qwen3coder_tool_parser.py@049d8df2';
const QWEN3_TOOLS = [
  { name: 'get_current_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, state: { type: 'string' }, unit: { type: 'string', enum: ['fahrenheit', 'celsius'] } }, required: ['city', 'state'] } },
  { name: 'calculate_area', parameters: { type: 'object', properties: { shape: { type: 'string' }, dimensions: { type: 'object' }, precision: { type: 'integer' } } } },
];
const Q3 = (name: string, params: Record<string, string>): string => `<tool_call>\n<function=${name}>\n${Object.entries(params).map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
const DALLAS = { name: 'get_current_weather', args: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' } };
const NULLABLE_OF = (type: unknown) => ({ anyOf: [type, { type: 'null' }] });

export const HARVEST_QWEN3_CODER: HarvestCase[] = [
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls_no_tools`, text: 'This is a test response without any tool calls', calls: [], content: 'This is a test response without any tool calls', tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls[single_tool]`, text: Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' }), calls: [DALLAS], content: null, tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls[single_tool_with_content]`, text: `Sure! Let me check the weather for you.${Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' })}`, calls: [DALLAS], content: 'Sure! Let me check the weather for you.', tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls[single_tool_multiline_param]`, text: Q3('calculate_area', { shape: 'rectangle', dimensions: '{"width": 10, \n "height": 20}', precision: '2' }), calls: [{ name: 'calculate_area', args: { shape: 'rectangle', dimensions: { width: 10, height: 20 }, precision: 2 } }], content: null, tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls[parallel_tools]`, text: `${Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' })}\n${Q3('get_current_weather', { city: 'Orlando', state: 'FL', unit: 'fahrenheit' })}`, calls: [DALLAS, { name: 'get_current_weather', args: { city: 'Orlando', state: 'FL', unit: 'fahrenheit' } }], content: null, tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls[tool_with_typed_params]`, text: `Let me calculate that area for you.${Q3('calculate_area', { shape: 'circle', dimensions: '{"radius": 15.5}', precision: '3' })}`, calls: [{ name: 'calculate_area', args: { shape: 'circle', dimensions: { radius: 15.5 }, precision: 3 } }], content: 'Let me calculate that area for you.', tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls_fallback_no_tags`, text: '<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>', calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }], tools: QWEN3_TOOLS },
  {
    source: `${VLLM_QWEN3} :: test_extract_tool_calls_type_conversion`,
    text: Q3('test_types', { int_param: '42', float_param: '3.14', bool_param: 'true', str_param: 'hello world', obj_param: '{"key": "value"}' }),
    calls: [{ name: 'test_types', args: { int_param: 42, float_param: 3.14, bool_param: true, str_param: 'hello world', obj_param: { key: 'value' } } }],
    tools: [{ name: 'test_types', parameters: { type: 'object', properties: { int_param: { type: 'integer' }, float_param: { type: 'float' }, bool_param: { type: 'boolean' }, str_param: { type: 'string' }, obj_param: { type: 'object' } } } }],
  },
  {
    source: `${VLLM_QWEN3} :: test_extract_tool_calls_anyof_type_conversion`,
    text: Q3('test_anyof', { anyof_int: '5', anyof_str: 'hello', anyof_array: '["a", "b", "c"]', anyof_obj: '{"key": "value"}', type_as_array: '42', multi_non_null: 'some text' }),
    calls: [{ name: 'test_anyof', args: { anyof_int: 5, anyof_str: 'hello', anyof_array: ['a', 'b', 'c'], anyof_obj: { key: 'value' }, type_as_array: 42, multi_non_null: 'some text' } }],
    tools: [{ name: 'test_anyof', parameters: { type: 'object', properties: { anyof_int: { ...NULLABLE_OF({ type: 'integer' }), default: 5 }, anyof_str: NULLABLE_OF({ type: 'string' }), anyof_array: NULLABLE_OF({ type: 'array', items: { type: 'string' } }), anyof_obj: NULLABLE_OF({ type: 'object' }), type_as_array: { type: ['integer', 'null'] }, multi_non_null: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] } } } }],
  },
  {
    source: `${VLLM_QWEN3} :: test_extract_tool_calls_anyof_type_conversion_streaming`,
    text: Q3('search_web', { query: 'vllm tool parser', count: '10', verbose: 'true' }),
    calls: [{ name: 'search_web', args: { query: 'vllm tool parser', count: 10, verbose: true } }],
    tools: [{ name: 'search_web', parameters: { type: 'object', properties: { query: NULLABLE_OF({ type: 'string' }), count: { ...NULLABLE_OF({ type: 'integer' }), default: 5 }, verbose: NULLABLE_OF({ type: 'boolean' }) } } }],
  },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls_missing_closing_parameter_tag`, text: 'Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>', calls: [DALLAS], content: 'Let me check the weather for you:', tools: QWEN3_TOOLS },
  { source: `${VLLM_QWEN3} :: test_extract_tool_calls_streaming_incremental`, text: "I'll check the weather.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>", calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }], content: "I'll check the weather.", tools: QWEN3_TOOLS },
];

const VLLM_MISTRAL = 'vllm-project/vllm tests/tool_parsers/test_mistral_tool_parser.py@002d5731';
const SF = { name: 'get_current_weather', args: { city: 'San Francisco', state: 'CA', unit: 'celsius' } };

// Content is not asserted where vLLM drops text toolgate keeps (trailing data after the calls).
export const HARVEST_MISTRAL: HarvestCase[] = [
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_no_tools`, text: 'This is a test', calls: [], declared: ['add'] },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[single_tool_add]`, text: '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]', calls: [{ name: 'add', args: { a: 3.5, b: 4 } }], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[single_tool_weather]`, text: '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]', calls: [SF], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[argument_before_name]`, text: '[TOOL_CALLS] [{"arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}, "name": "get_current_weather"}]', calls: [SF], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[argument_before_name_and_name_in_argument]`, text: '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]', calls: [{ name: 'get_age', args: { name: 'John Doe' } }], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[multiple_tools]`, text: '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]', calls: [{ name: 'add', args: { a: 3.5, b: 4 } }, SF], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[content_before_tool]`, text: 'Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]', calls: [{ name: 'add', args: { a: 1, b: 2 } }], content: 'Hello' },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]`, text: '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}]\nextra trailing data', calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' } }] },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_regex_fallback`, text: '[TOOL_CALLS]  junk [{"name": "add", "arguments":{"a": 1, "b": 2}}] trail', calls: [{ name: 'add', args: { a: 1, b: 2 } }] },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls_pre_v11_regex_fallback_fails`, text: '[TOOL_CALLS] not json at all', calls: [], declared: ['add'] },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls[single_tool_add] (v11)`, text: '[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}', calls: [{ name: 'add_this_and_that', args: { a: 3.5, b: 4 } }], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls[single_tool_weather] (v11)`, text: '[TOOL_CALLS]get_current_weather{"city": "San Francisco", "state": "CA", "unit": "celsius"}', calls: [SF], content: null },
  { source: `${VLLM_MISTRAL} :: test_extract_tool_calls[multiple_tool_calls] (v11)`, text: '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}', calls: [{ name: 'add', args: { a: 3.5, b: 4 } }, { name: 'multiply', args: { a: 3, b: 6 } }], content: null },
];

// SGLang's sections for Llama 3.2 JSON, Kimi K2, DeepSeek V3, Qwen3-Coder and GLM-4.5/4.6 (same file
// and commit as HARVEST_SGLANG). Streaming tests count as their chunks joined; tests that only check
// a half-written call (partial arguments) or only that a result exists are left out.
const SGL_CITY_TOOLS = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_tourist_attractions', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];
const SGL_Q3_TOOLS = [
  { name: 'get_current_weather', parameters: { properties: { city: { type: 'string' }, state: { type: 'string' }, unit: { type: 'string', enum: ['fahrenheit', 'celsius'] } }, required: ['city', 'state'] } },
  { name: 'calculate_area', parameters: { properties: { shape: { type: 'string' }, dimensions: { type: 'object' }, precision: { type: 'integer' } } } },
];
const SGL_GLM_TOOLS = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, date: { type: 'string' } }, required: ['city', 'date'] } }];
const KIMI = (calls: Array<[string, string]>): string => `<|tool_calls_section_begin|>${calls.map(([id, args]) => `<|tool_call_begin|>functions.${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`).join('')}<|tool_calls_section_end|>`;
const GLM = (name: string, args: Record<string, string>): string => `<tool_call>${name}\n${Object.entries(args).map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`).join('')}</tool_call>`;
const TODOS = [
  { id: '1', task: 'Check for hard-coded issues in the backend code', status: 'in_progress' },
  { id: '2', task: 'Check for hard-coded issues in the frontend code', status: 'pending' },
  { id: '3', task: 'Check for code violating the Single Responsibility Principle', status: 'pending' },
  { id: '4', task: 'Generate a rectification proposal report', status: 'pending' },
];
const TODOS_JSON = JSON.stringify(TODOS).replaceAll('","', '", "').replaceAll('":"', '": "').replaceAll('},{', '}, {');
const Q3_DALLAS_TX = Q3('get_current_weather', { city: 'Dallas', state: 'TX' });
const INDENT = (text: string): string => text.replaceAll('\n', '\n        ');

export const HARVEST_SGLANG_MORE: HarvestCase[] = [
  { source: `${SGL} :: TestLlama32Detector.test_single_json`, text: '{"name": "get_weather", "parameters": {"city": "Paris"}}', calls: [{ name: 'get_weather', args: { city: 'Paris' } }], content: null, tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_multiple_json_with_separator`, text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_tourist_attractions", "parameters": {"city": "Paris"}}', calls: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_tourist_attractions', args: { city: 'Paris' } }], content: null, tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_multiple_json_with_separator_customized`, text: '<|python_tag|>{"name": "get_weather", "parameters": {}}<|python_tag|>{"name": "get_tourist_attractions", "parameters": {}}', calls: [{ name: 'get_weather', args: {} }, { name: 'get_tourist_attractions', args: {} }], content: null, tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_json_with_trailing_text`, text: '{"name": "get_weather", "parameters": {}} Some follow-up text', calls: [{ name: 'get_weather', args: {} }], content: 'Some follow-up text', tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_invalid_then_valid_json`, text: '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}', calls: [{ name: 'get_weather', args: {} }], tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_plain_text_only`, text: 'This is just plain explanation text.', calls: [], content: 'This is just plain explanation text.', tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestLlama32Detector.test_with_python_tag_prefix`, text: 'Some intro. <|python_tag|>{"name": "get_weather", "parameters": {}}', calls: [{ name: 'get_weather', args: {} }], content: 'Some intro.', tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestKimiK2Detector.test_single_tool_call`, text: KIMI([['get_weather:0', '{"city": "Paris"}']]), calls: [{ name: 'get_weather', args: { city: 'Paris' } }], content: null, tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestKimiK2Detector.test_multiple_tool_calls`, text: KIMI([['get_weather:0', '{"city": "Paris"}'], ['get_tourist_attractions:1', '{"city": "London"}']]), calls: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_tourist_attractions', args: { city: 'London' } }], content: null, tools: SGL_CITY_TOOLS },
  { source: `${SGL} :: TestKimiK2Detector.test_invalid_tool_call`, text: 'invalid_tool:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>', calls: [], content: 'invalid_tool:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>', tools: SGL_CITY_TOOLS },
  {
    source: `${SGL} :: TestDeepSeekV3Detector.test_parse_streaming_multiple_tool_calls_with_multi_token_chunk`,
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Shanghai"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_tourist_attractions\n```json\n{"city": "Beijing"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [{ name: 'get_weather', args: { city: 'Shanghai' } }, { name: 'get_tourist_attractions', args: { city: 'Beijing' } }],
    tools: SGL_CITY_TOOLS,
  },
  { source: `${SGL} :: TestQwen3CoderDetector.test_detect_and_parse_no_tools`, text: 'This is a test response without any tool calls', calls: [], content: 'This is a test response without any tool calls', tools: [] },
  { source: `${SGL} :: TestQwen3CoderDetector.test_detect_and_parse_single_tool`, text: Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' }), calls: [DALLAS], content: null, tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_detect_and_parse_with_content`, text: `Sure! Let me check the weather for you.${Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' })}`, calls: [DALLAS], content: 'Sure! Let me check the weather for you.', tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_detect_and_parse_multiline_param`, text: Q3('calculate_area', { shape: 'rectangle', dimensions: '{"width": 10,\n "height": 20}', precision: '2' }), calls: [{ name: 'calculate_area', args: { shape: 'rectangle', dimensions: { width: 10, height: 20 }, precision: 2 } }], tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_detect_and_parse_parallel_tools`, text: `${Q3('get_current_weather', { city: 'Dallas', state: 'TX', unit: 'fahrenheit' })}\n${Q3('get_current_weather', { city: 'Orlando', state: 'FL', unit: 'fahrenheit' })}`, calls: [DALLAS, { name: 'get_current_weather', args: { city: 'Orlando', state: 'FL', unit: 'fahrenheit' } }], content: null, tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_parse_streaming_simple`, text: `Sure! Let me check the weather.${Q3_DALLAS_TX}`, calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }], content: 'Sure! Let me check the weather.', tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_parse_streaming_incomplete (completed)`, text: Q3_DALLAS_TX, calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }], tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_edge_case_no_parameters`, text: '<tool_call>\n<function=get_current_weather>\n</function>\n</tool_call>', calls: [{ name: 'get_current_weather', args: {} }], tools: SGL_Q3_TOOLS },
  { source: `${SGL} :: TestQwen3CoderDetector.test_edge_case_special_chars_in_value`, text: Q3('get_current_weather', { city: 'Dallas->TX' }), calls: [{ name: 'get_current_weather', args: { city: 'Dallas->TX' } }], tools: SGL_Q3_TOOLS },
  {
    source: `${SGL} :: TestQwen3CoderDetector.test_extract_tool_calls_type_conversion`,
    text: Q3('test_types', { int_param: '42', float_param: '3.14', bool_param: 'true', str_param: 'hello world', obj_param: '{"key": "value"}' }),
    calls: [{ name: 'test_types', args: { int_param: 42, float_param: 3.14, bool_param: true, str_param: 'hello world', obj_param: { key: 'value' } } }],
    tools: [{ name: 'test_types', parameters: { type: 'object', properties: { int_param: { type: 'integer' }, float_param: { type: 'float' }, bool_param: { type: 'boolean' }, str_param: { type: 'string' }, obj_param: { type: 'object' } } } }],
  },
  { source: `${SGL} :: TestQwen3CoderDetector.test_parse_streaming_incremental`, text: `I'll check the weather.${Q3_DALLAS_TX}`, calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }], content: "I'll check the weather.", tools: SGL_Q3_TOOLS },
  {
    source: `${SGL} :: TestQwen3CoderDetector.test_parse_streaming_multiple_tools`,
    text: INDENT(`${Q3_DALLAS_TX}\nSome text in between.\n${Q3('calculate_area', { shape: 'circle', dimensions: '{"radius": 5}' })}`),
    calls: [{ name: 'get_current_weather', args: { city: 'Dallas', state: 'TX' } }, { name: 'calculate_area', args: { shape: 'circle', dimensions: { radius: 5 } } }],
    content: 'Some text in between.',
    tools: SGL_Q3_TOOLS,
  },
  { source: `${SGL} :: TestGlm4MoeDetector.test_single_tool_call`, text: GLM('get_weather', { city: 'Beijing', date: '2024-06-27' }), calls: [{ name: 'get_weather', args: { city: 'Beijing', date: '2024-06-27' } }], content: null, tools: SGL_GLM_TOOLS },
  { source: `${SGL} :: TestGlm4MoeDetector.test_multiple_tool_calls`, text: GLM('get_weather', { city: 'Beijing', date: '2024-06-27' }) + GLM('get_weather', { city: 'Shanghai', date: '2024-06-28' }), calls: [{ name: 'get_weather', args: { city: 'Beijing', date: '2024-06-27' } }, { name: 'get_weather', args: { city: 'Shanghai', date: '2024-06-28' } }], content: null, tools: SGL_GLM_TOOLS },
  { source: `${SGL} :: TestGlm4MoeDetector.test_invalid_tool_call`, text: '<tool_call>invalid_func\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>', calls: [], tools: SGL_GLM_TOOLS },
  {
    source: `${SGL} :: TestGlm4MoeDetector.test_array_argument_with_escaped_json (plain)`,
    text: `<tool_call>todo_write\n<arg_key>todos</arg_key>\n<arg_value>${TODOS_JSON}</arg_value>\n</tool_call>`,
    calls: [{ name: 'todo_write', args: { todos: TODOS } }],
    tools: [{ name: 'todo_write', parameters: { type: 'object', properties: { todos: { type: 'array' } }, required: ['todos'] } }],
  },
  {
    source: `${SGL} :: TestGlm4MoeDetector.test_array_argument_with_escaped_json (raw: literal \\n, escaped quotes)`,
    text: `<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>${TODOS_JSON.replaceAll('"', '\\"')}</arg_value>\n</tool_call>`,
    calls: [{ name: 'todo_write', args: { todos: TODOS } }],
    tools: [{ name: 'todo_write', parameters: { type: 'object', properties: { todos: { type: 'array' } }, required: ['todos'] } }],
  },
];

export const HARVEST: HarvestCase[] = [
  ...HARVEST_LFM2,
  ...HARVEST_MINIMAX_M2,
  ...HARVEST_HERMES,
  ...HARVEST_QWEN3_CODER,
  ...HARVEST_MISTRAL,
  ...HARVEST_SGLANG,
  ...HARVEST_SGLANG_MORE,
  ...HARVEST_LLAMA3_JSON,
  ...HARVEST_DEEPSEEK_V3,
  ...HARVEST_STEP3,
  ...HARVEST_GLM4_MOE,
  ...HARVEST_KIMI_K2,
  ...HARVEST_DEEPSEEK_V31,
  ...HARVEST_HUNYUAN_A13B,
  ...HARVEST_SEED_OSS,
  ...HARVEST_JAMBA,
];
