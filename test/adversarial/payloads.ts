// Adversarial payload families, shared by the adversarial test suite and the benchmark
// (bench/adversarial.ts). Each family builds a text of about `bytes` UTF-8 bytes. The families
// named in issue 14 come first in each list; the others are new members of the same families
// (other openers, regex shapes, nesting shapes) so a fix for the examples alone does not pass.

/** `unit` repeated until the text holds at least `bytes` UTF-8 bytes, between `head` and `tail`. */
export function repeatTo(bytes: number, unit: string, head = '', tail = ''): string {
  const fixed = Buffer.byteLength(head + tail);
  const count = Math.max(1, Math.ceil((bytes - fixed) / Buffer.byteLength(unit)));
  return head + unit.repeat(count) + tail;
}

export interface TextFamily {
  name: string;
  /** True when issue 14 names this payload; false for the new members of its family. */
  fromIssue: boolean;
  build(bytes: number): string;
}

// DeepSeek markers (full-width bars and the ▁ block, as the model's tokenizer writes them).
const DS_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const DS_CALL_BEGIN = '<｜tool▁call▁begin｜>';
const DS_SEP = '<｜tool▁sep｜>';
const DS_CALL_END = '<｜tool▁call▁end｜>';
const FENCE = '```';

const half = (bytes: number): number => Math.floor(bytes / 2);

/**
 * Model answers (the `content` of an upstream answer to a request that declared `get_weather`).
 * None of them holds a complete, valid call: a safe parser leaves every one as content, verbatim.
 */
export const MODEL_OUTPUT_FAMILIES: readonly TextFamily[] = [
  // Control: plain prose (issue 14: 0.12 s at 200 KB). If this grows super-linearly, the cost is in
  // the answer pipeline itself, not in a parser.
  { name: 'control-plain-prose', fromIssue: true, build: (n) => repeatTo(n, 'The weather in Oslo is mild today, with light rain expected in the evening. ') },
  // Repeated unclosed openers (issue 14 §1).
  { name: 'json-name-then-brace-quote', fromIssue: true, build: (n) => repeatTo(n, '{"\n', '"name\n"') },
  { name: 'mistral-tool-calls-open', fromIssue: true, build: (n) => repeatTo(n, '[TOOL_CALLS][{') },
  { name: 'hermes-tool-call-open', fromIssue: true, build: (n) => repeatTo(n, '<tool_call>{') },
  { name: 'llama3-python-tag-open', fromIssue: true, build: (n) => repeatTo(n, '<|python_tag|>{') },
  { name: 'kimi-functions-id-open', fromIssue: true, build: (n) => repeatTo(n, 'functions.get_weather:0 {') },
  { name: 'tool-tag-open', fromIssue: true, build: (n) => repeatTo(n, '<TOOL>') },
  // New openers of the same family.
  { name: 'brace-quote-no-newline', fromIssue: false, build: (n) => repeatTo(n, '{"') },
  { name: 'line-start-brace-quote', fromIssue: false, build: (n) => repeatTo(n, '\n{"name": "get_weather", "arguments": {"city": ') },
  { name: 'bracket-run-unclosed', fromIssue: false, build: (n) => repeatTo(n, '[') },
  { name: 'bracket-brace-run', fromIssue: false, build: (n) => repeatTo(n, '\n[{"name": "get_weather", ') },
  { name: 'hermes-then-quotes', fromIssue: false, build: (n) => repeatTo(n, '"', '<tool_call>') },
  { name: 'hermes-unclosed-unicode-escapes', fromIssue: false, build: (n) => repeatTo(n, '\\u00e9\\ud83c', '<tool_call>{"name": "get_weather", "arguments": {"city": "') },
  { name: 'hermes-unclosed-emoji-string', fromIssue: false, build: (n) => repeatTo(n, 'é🌧️', '<tool_call>{"name": "get_weather", "arguments": {"city": "') },
  { name: 'qwen3-coder-function-open', fromIssue: false, build: (n) => repeatTo(n, '<tool_call>\n<function=get_weather>\n<parameter=city>\n') },
  { name: 'qwen3-coder-parameter-open', fromIssue: false, build: (n) => repeatTo(n, '<parameter=city>', '<tool_call>\n<function=get_weather>\n') },
  // Openers mid-line (every value ran on through the rest) and a </parameter> that closes nothing.
  { name: 'qwen3-coder-inline-openers', fromIssue: false, build: (n) => repeatTo(n, 'a <function=get_weather>\n<parameter=city>x\n') },
  { name: 'qwen3-coder-stray-parameter-close', fromIssue: false, build: (n) => repeatTo(n, '<tool_call>\n<function=get_weather>\n<parameter=city>\nx </parameter> y\n') },
  { name: 'kimi-section-begin', fromIssue: false, build: (n) => repeatTo(n, '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{') },
  { name: 'deepseek-call-begin-open', fromIssue: false, build: (n) => repeatTo(n, `${DS_CALLS_BEGIN}${DS_CALL_BEGIN}function${DS_SEP}get_weather\n${FENCE}json\n{`) },
  { name: 'python-start-open', fromIssue: false, build: (n) => repeatTo(n, '<|python_start|>[get_weather(') },
  { name: 'lt-run', fromIssue: false, build: (n) => repeatTo(n, '<') },
  { name: 'think-and-fence-open', fromIssue: false, build: (n) => repeatTo(n, '<think>\n```json\n{"name": "get_weather", "arguments": ') },
  { name: 'all-openers-cycle', fromIssue: false, build: (n) => repeatTo(n, '<tool_call>{[TOOL_CALLS][{<|python_tag|>{functions.get_weather:0 {<TOOL>get_weather: {"\n[get_weather(') },
  // Openers of the formats other branches add (GLM 4.5, MiniMax M2, DeepSeek DSML, Step3, gpt-oss,
  // GigaChat, Granite, Nemotron, LFM2): guards for when they land; plain prose before that.
  { name: 'glm-arg-key-open', fromIssue: false, build: (n) => repeatTo(n, '<arg_key>city</arg_key><arg_value>', '<tool_call>get_weather\n') },
  { name: 'glm-tool-call-name-open', fromIssue: false, build: (n) => repeatTo(n, '<tool_call>get_weather\n<arg_key>') },
  { name: 'minimax-invoke-open', fromIssue: false, build: (n) => repeatTo(n, '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">') },
  { name: 'dsml-function-calls-open', fromIssue: false, build: (n) => repeatTo(n, '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">') },
  { name: 'step3-calls-begin-open', fromIssue: false, build: (n) => repeatTo(n, '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="city">') },
  { name: 'gpt-oss-commentary-open', fromIssue: false, build: (n) => repeatTo(n, '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": ') },
  { name: 'gigachat-function-call-open', fromIssue: false, build: (n) => repeatTo(n, '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {') },
  { name: 'granite-nemotron-open', fromIssue: false, build: (n) => repeatTo(n, '<|tool_call|>[{"name": "get_weather", "arguments": <TOOLCALL>[{"name": ') },
  { name: 'lfm2-olmo-open', fromIssue: false, build: (n) => repeatTo(n, '<|tool_call_start|>[get_weather(city=<function_calls>get_weather(city=') },
  { name: 'invoke-parameter-open', fromIssue: false, build: (n) => repeatTo(n, '<parameter name="city">', '<minimax:tool_call>\n<invoke name="get_weather">\n') },
  // Nesting (issue 14 §2): model text too deep to parse safely stays content.
  { name: 'pythonic-bracket-nesting', fromIssue: true, build: (n) => repeatTo(n, '[', '[get_weather(city=') },
  { name: 'hermes-nested-arrays', fromIssue: true, build: (n) => `<tool_call>${'['.repeat(half(n))}${']'.repeat(half(n))}</tool_call>` },
  { name: 'hermes-deep-arguments', fromIssue: true, build: (n) => deepArgsCall(n, '<tool_call>', '</tool_call>') },
  { name: 'pythonic-paren-nesting', fromIssue: false, build: (n) => repeatTo(n, '(', '[get_weather(city=') },
  { name: 'pythonic-closed-deep-list', fromIssue: false, build: (n) => `[get_weather(city=${'['.repeat(half(n) - 20)}${']'.repeat(half(n) - 20)})]` },
  { name: 'pythonic-dict-nesting', fromIssue: false, build: (n) => `[get_weather(city=${"{'a': ".repeat(Math.floor(n / 8))}1${'}'.repeat(Math.floor(n / 8))})]` },
  { name: 'bare-json-deep-arguments', fromIssue: false, build: (n) => deepArgsCall(n, '', '') },
  { name: 'mistral-deep-arguments', fromIssue: false, build: (n) => `[TOOL_CALLS]${deepArgsCall(n, '[', ']')}` },
  { name: 'hermes-nested-objects-in-array', fromIssue: false, build: (n) => `<tool_call>${'[{"a":'.repeat(Math.floor(n / 12))}1${'}]'.repeat(Math.floor(n / 12))}</tool_call>` },
  // Broken JSON that makes jsonrepair worse than quadratic ({'a'a'a…: 7 s at 8 KB), as call arguments
  // in formats whose argument end is a marker: one long slice, and many 1 KB slices.
  { name: 'deepseek-quote-run-arguments', fromIssue: false, build: (n) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{'a${"'a".repeat(half(n))}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>` },
  { name: 'kimi-quote-run-calls', fromIssue: false, build: (n) => repeatTo(n, `<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{'a${"'a".repeat(500)}}<|tool_call_end|>`, '<|tool_calls_section_begin|>') },
  { name: 'backtick-run-arguments', fromIssue: false, build: (n) => `<tool_call>{"name": "get_weather", "arguments": {\`a${'`a'.repeat(half(n))}}}</tool_call>` },
];

/** A complete call to get_weather whose arguments nest about n/10 levels deep. */
function deepArgsCall(n: number, open: string, close: string): string {
  const depth = Math.floor(n / 8);
  return `${open}{"name": "get_weather", "arguments": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}${close}`;
}

/**
 * Regex shapes: text a backtracking regex over the call body would explore in super-linear time.
 * Issue 14's DeepSeek V3 payload first, then other shapes of the same kind.
 */
export const MODEL_REGEX_FAMILIES: readonly TextFamily[] = [
  {
    name: 'deepseek-v3-fence-spaces',
    fromIssue: true,
    build: (n) => repeatTo(n, ' ', `${DS_CALL_BEGIN}function${DS_SEP}a${FENCE}`, `x${DS_CALL_END}`),
  },
  {
    name: 'deepseek-v3-name-spaces-no-fence',
    fromIssue: false,
    build: (n) => repeatTo(n, 'a \t', `${DS_CALL_BEGIN}function${DS_SEP}`, `${DS_CALL_END}`),
  },
  {
    name: 'deepseek-v3-many-fences',
    fromIssue: false,
    build: (n) => repeatTo(n, `${FENCE} `, `${DS_CALL_BEGIN}function${DS_SEP}get_weather\n`, `x${DS_CALL_END}`),
  },
  {
    name: 'tool-tag-name-spaces',
    fromIssue: false,
    build: (n) => repeatTo(n, ' \t', '<TOOL>get_weather', ' x</TOOL>'),
  },
  {
    name: 'tool-tag-colons',
    fromIssue: false,
    build: (n) => repeatTo(n, ':', '<TOOL>get_weather', ' </TOOL>'),
  },
];

/** Message text a client sends in its history: near-misses of the object-repr check (corrupted content). */
export const CLIENT_CONTENT_FAMILIES: readonly TextFamily[] = [
  { name: 'repr-open-no-close', fromIssue: false, build: (n) => repeatTo(n, '<agent_framework._types.ChatMessage object at 0x1f ') },
  { name: 'object-bracket-run', fromIssue: false, build: (n) => repeatTo(n, '[object ') },
];

/**
 * Invalid tool-call `arguments` a client sends back in its history (issue 14: `'a` × 250 KB stalls
 * jsonrepair), plus other shapes that make a JSON repairer re-scan.
 */
export const ARGUMENT_FAMILIES: readonly TextFamily[] = [
  { name: "quote-a", fromIssue: true, build: (n) => repeatTo(n, "'a") },
  { name: 'open-key-colon', fromIssue: false, build: (n) => repeatTo(n, '{"a":') },
  { name: 'open-bracket-quote', fromIssue: false, build: (n) => repeatTo(n, '["') },
  { name: 'unicode-escapes-unclosed', fromIssue: false, build: (n) => repeatTo(n, '\\u00', '{"a": "') },
  { name: 'single-quote-unicode', fromIssue: false, build: (n) => repeatTo(n, "'é🌧", '{') },
  { name: 'comment-openers', fromIssue: false, build: (n) => repeatTo(n, '/*a', '{"a": 1 ') },
  { name: 'deep-closed-json', fromIssue: false, build: (n) => `${'{"a":'.repeat(Math.floor(n / 6))}1${'}'.repeat(Math.floor(n / 6))}` },
  { name: 'brace-quote-a', fromIssue: false, build: (n) => repeatTo(n, "'a", '{', '}') },
];

/** Catastrophic-backtracking patterns a client may declare in a tool's JSON schema. */
export const REDOS_PATTERNS: readonly { name: string; fromIssue: boolean; pattern: string; value: (n: number) => string }[] = [
  { name: 'nested-plus', fromIssue: true, pattern: '^A(a+)+B$', value: (n) => repeatTo(n, 'a', 'A', '!') },
  { name: 'alternation-star', fromIssue: false, pattern: '^(a|aa)*$', value: (n) => repeatTo(n, 'a', '', '!') },
  { name: 'nested-star-class', fromIssue: false, pattern: '^([a-z0-9]+\\s?)*$', value: (n) => repeatTo(n, 'x', '', '!') },
  { name: 'backreference', fromIssue: false, pattern: '^(\\w+)\\s*\\1+x$', value: (n) => repeatTo(n, 'ab', '', '!') },
];

/** Every `parts`-th family, starting at `part`: several test files share a family list. */
export function partOf<T>(families: readonly T[], part: number, parts: number): T[] {
  return families.filter((_, index) => index % parts === part);
}
