// A pure validator as strict as api.openai.com's POST /v1/chat/completions about request shape and
// tool-calling histories, answering with OpenAI's exact messages, params and codes.
//
// Evidence: every sentence is quoted from a real OpenAI answer reported in a public issue (repository
// and number next to the rule), or from the direct-API conformance table of a public proxy test suite
// (48 953-char file found by exact-string search, rows "measured 2026-08-30/31 against the direct API"),
// which also fixes the ORDER in which two faults in one body are reported:
//   model missing  >  messages missing  >  unknown top-level key  >  per-field schema faults
//   (messages first, then functions, tools, parallel_tool_calls, max_completion_tokens, n, temperature,
//   top_p, presence_penalty, frequency_penalty, logprobs, top_logprobs, user, seed, safety_identifier,
//   prompt_cache_key, service_tier, stream, store, metadata, verbosity)  >  cross-field rules  >
//   the older semantic validator (missing content, tool-call sequencing; see openai-rules-messages.ts).
// Where a rule's exact position is unobserved it sits with its family, and the comment says so.
import {
  describeValue,
  emptyArray,
  emptyString,
  fail,
  invalidType,
  invalidValue,
  legacy,
  missingParam,
  outOfRange,
  patternMismatch,
  stringTooLong,
  arrayTooLong,
  unknownParameter,
  type RuleFailure,
} from './openai-errors.js';
import { checkHistory, checkMessageShapes, FUNCTION_NAME_PATTERN } from './openai-rules-messages.js';

export type { OpenAIErrorBody, RuleFailure } from './openai-errors.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined && o[k] !== null;

/** Every top-level property of the spec's CreateChatCompletionRequest (allOf CreateModelResponseProperties
 *  + ModelResponseProperties), openai-openapi f85dbe2 (2026-08-21). The self-test checks this list
 *  against the spec file. Anything else is refused. */
export const KNOWN_CHAT_PARAMS: readonly string[] = [
  'metadata', 'top_logprobs', 'temperature', 'top_p', 'user', 'safety_identifier', 'prompt_cache_key',
  'prompt_cache_retention', 'prompt_cache_options', 'messages', 'model', 'service_tier', 'modalities',
  'verbosity', 'reasoning_effort', 'max_completion_tokens', 'frequency_penalty', 'presence_penalty',
  'web_search_options', 'response_format', 'audio', 'store', 'moderation', 'stream', 'stop', 'logit_bias',
  'logprobs', 'max_tokens', 'n', 'prediction', 'seed', 'stream_options', 'tools', 'tool_choice',
  'parallel_tool_calls', 'function_call', 'functions',
];
const KNOWN = new Set(KNOWN_CHAT_PARAMS);

export interface CheckOptions {
  /** How an unknown top-level key is refused. OpenAI answers in two styles depending on the model family:
   *  'unrecognized' (default): "Unrecognized request argument supplied: thinking", param null, code null
   *    (nashsu/llm_wiki#336 2026; coroot/coroot#698 and davidmigloz/langchain_dart#712 2025, gpt-4o family);
   *  'unknown_parameter': "Unknown parameter: 'zzz_unknown'.", param the key, code unknown_parameter
   *    (direct-API conformance table, gpt-5.6 family, 2026-08-30). */
  unknownParameterStyle?: 'unrecognized' | 'unknown_parameter';
}

const TOOL_TYPES = ['function', 'custom'];
const TOOL_CHOICE_MODES = ['none', 'auto', 'required'];
const SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority', 'fast'];
const VERBOSITY = ['low', 'medium', 'high'];
const REASONING_EFFORT = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const RESPONSE_FORMATS = ['json_object', 'json_schema', 'text'];
const STREAM_OPTION_KEYS = new Set(['include_usage', 'include_obfuscation']);
/** "Invalid 'tools': array too long. Expected an array with maximum length 128, ..." (Upsonic/Upsonic#176) */
const MAX_TOOLS = 128;
/** "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, ..." */
const MAX_FUNCTION_NAME = 64;

type Scalar = 'boolean' | 'integer' | 'decimal' | 'string';
const EXPECTED: Record<Scalar, string> = { boolean: 'a boolean', integer: 'an integer', decimal: 'a decimal', string: 'a string' };

function scalar(body: Obj, key: string, kind: Scalar, min?: number, max?: number): RuleFailure | null {
  if (!present(body, key)) return null; // null is accepted for optional fields (SDKs send explicit nulls)
  const v = body[key];
  const ok =
    kind === 'boolean' ? typeof v === 'boolean'
    : kind === 'string' ? typeof v === 'string'
    : kind === 'integer' ? typeof v === 'number' && Number.isInteger(v)
    : typeof v === 'number';
  // "Invalid type for 'n': expected an integer, but got a string instead." / "... expected a decimal ..."
  if (!ok) return invalidType(key, EXPECTED[kind], v);
  const n = v as number;
  const numKind = kind === 'integer' ? 'integer' : 'decimal';
  // "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead."
  if (min !== undefined && n < min) return outOfRange(key, n, min, 'min', numKind);
  if (max !== undefined && n > max) return outOfRange(key, n, max, 'max', numKind);
  return null;
}

function enumField(body: Obj, key: string, values: string[]): RuleFailure | null {
  if (!present(body, key)) return null;
  const v = body[key];
  if (typeof v !== 'string') return invalidType(key, `one of ${values.map((x) => `'${x}'`).join(', ')}`, v);
  return values.includes(v) ? null : invalidValue(key, v, values);
}

function checkTools(body: Obj): RuleFailure | null {
  if (!present(body, 'tools')) return null;
  const tools = body.tools;
  if (!Array.isArray(tools)) return invalidType('tools', 'an array of objects', tools);
  // "Invalid 'tools': empty array. Expected an array with minimum length 1, ..." (continuedev/continue#3370)
  if (tools.length === 0) return emptyArray('tools');
  if (tools.length > MAX_TOOLS) return arrayTooLong('tools', MAX_TOOLS, tools.length);
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    const p = `tools[${i}]`;
    if (!isObj(t)) return invalidType(p, 'an object', t);
    if (!present(t, 'type')) return missingParam(`${p}.type`);
    if (!TOOL_TYPES.includes(String(t.type))) return invalidValue(`${p}.type`, t.type, TOOL_TYPES);
    if (t.type === 'custom') {
      if (!present(t, 'custom')) return missingParam(`${p}.custom`);
      continue;
    }
    // "Missing required parameter: 'tools[0].function'." (conformance table, 2026-08-30)
    if (!present(t, 'function')) return missingParam(`${p}.function`);
    const f = t.function;
    if (!isObj(f)) return invalidType(`${p}.function`, 'an object', f);
    // "Missing required parameter: 'tools[0].function.name'."
    if (!present(f, 'name')) return missingParam(`${p}.function.name`);
    if (typeof f.name !== 'string') return invalidType(`${p}.function.name`, 'a string', f.name);
    // "Invalid 'tools[0].function.name': empty string. ..." code empty_string (conformance table, 2026-09-04)
    if (f.name.length === 0) return emptyString(`${p}.function.name`);
    // "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the
    // pattern '^[a-zA-Z0-9_-]+$'." code invalid_value (run-llama/llama_index#16093; brekkylab/ailoy#109)
    if (!/^[a-zA-Z0-9_-]+$/.test(f.name)) return patternMismatch(`${p}.function.name`, FUNCTION_NAME_PATTERN);
    if (f.name.length > MAX_FUNCTION_NAME) return stringTooLong(`${p}.function.name`, MAX_FUNCTION_NAME, f.name.length);
    if (present(f, 'description') && typeof f.description !== 'string') return invalidType(`${p}.function.description`, 'a string', f.description);
    if (present(f, 'parameters') && !isObj(f.parameters)) return invalidType(`${p}.function.parameters`, 'an object', f.parameters);
    if (present(f, 'strict') && typeof f.strict !== 'boolean') return invalidType(`${p}.function.strict`, 'a boolean', f.strict);
  }
  return null;
}

function checkToolChoiceShape(body: Obj): RuleFailure | null {
  if (!present(body, 'tool_choice')) return null;
  const c = body.tool_choice;
  if (typeof c === 'string') return TOOL_CHOICE_MODES.includes(c) ? null : invalidValue('tool_choice', c, TOOL_CHOICE_MODES);
  // "Invalid type for 'tool_choice': expected one of one of 'none', 'auto', or 'required' or object, but got an
  // integer instead." (sic, conformance table)
  if (!isObj(c)) {
    return fail(
      `Invalid type for 'tool_choice': expected one of one of 'none', 'auto', or 'required' or object, but got ${describeValue(c)} instead.`,
      'tool_choice',
      'invalid_type',
    );
  }
  if (c.type === 'allowed_tools' || c.type === 'custom') return null;
  if (!present(c, 'function')) return missingParam('tool_choice.function');
  if (!isObj(c.function)) return invalidType('tool_choice.function', 'an object', c.function);
  if (!present(c.function, 'name')) return missingParam('tool_choice.function.name');
  return null;
}

function checkStreamOptions(body: Obj): RuleFailure | null {
  if (!present(body, 'stream_options')) return null;
  const o = body.stream_options;
  if (!isObj(o)) return invalidType('stream_options', 'an object', o);
  // "Unknown parameter: 'stream_options.bogus'." (conformance table)
  for (const k of Object.keys(o)) if (!STREAM_OPTION_KEYS.has(k)) return unknownParameter(`stream_options.${k}`);
  for (const k of STREAM_OPTION_KEYS) if (present(o, k) && typeof o[k] !== 'boolean') return invalidType(`stream_options.${k}`, 'a boolean', o[k]);
  return null;
}

/** Schema-layer checks on the top-level fields, in the measured order (see header). */
function checkFields(body: Obj): RuleFailure | null {
  const messages = body.messages;
  // "Invalid type for 'messages': expected an array of objects, but got a string instead."
  if (!Array.isArray(messages)) return invalidType('messages', 'an array of objects', messages);
  // "Invalid 'messages': empty array. ..." code empty_array (CopilotKit/CopilotKit#529)
  if (messages.length === 0) return emptyArray('messages');
  const checks: Array<() => RuleFailure | null> = [
    () => checkMessageShapes(messages),
    () => (present(body, 'functions') && !Array.isArray(body.functions) ? invalidType('functions', 'an array of function definitions', body.functions) : null),
    () => checkTools(body),
    () => checkToolChoiceShape(body), // position among fields unobserved
    () => scalar(body, 'parallel_tool_calls', 'boolean'),
    () => scalar(body, 'max_completion_tokens', 'integer', 1),
    () => scalar(body, 'max_tokens', 'integer', 1),
    () => scalar(body, 'n', 'integer', 1, 128),
    () => scalar(body, 'temperature', 'decimal', 0, 2),
    () => scalar(body, 'top_p', 'decimal', 0, 1),
    () => scalar(body, 'presence_penalty', 'decimal', -2, 2),
    () => scalar(body, 'frequency_penalty', 'decimal', -2, 2),
    () => scalar(body, 'logprobs', 'boolean'),
    () => scalar(body, 'top_logprobs', 'integer', 0, 20),
    () => scalar(body, 'user', 'string'),
    () => scalar(body, 'seed', 'integer'),
    () => scalar(body, 'safety_identifier', 'string'),
    () => scalar(body, 'prompt_cache_key', 'string'),
    () => enumField(body, 'service_tier', SERVICE_TIERS),
    () => scalar(body, 'stream', 'boolean'),
    () => checkStreamOptions(body),
    () => scalar(body, 'store', 'boolean'),
    () => (present(body, 'metadata') && !isObj(body.metadata) ? invalidType('metadata', 'a metadata object', body.metadata) : null),
    () => enumField(body, 'verbosity', VERBOSITY),
    () => enumField(body, 'reasoning_effort', REASONING_EFFORT),
    () => {
      if (!present(body, 'response_format')) return null;
      const rf = body.response_format;
      if (!isObj(rf)) return invalidType('response_format', 'an object', rf);
      if (!present(rf, 'type')) return missingParam('response_format.type');
      return RESPONSE_FORMATS.includes(String(rf.type)) ? null : invalidValue('response_format.type', rf.type, RESPONSE_FORMATS);
    },
  ];
  for (const check of checks) {
    const r = check();
    if (r) return r;
  }
  return null;
}

/** Cross-field rules of the older validator (param = the field, code null). */
function checkCrossField(body: Obj): RuleFailure | null {
  const hasTools = present(body, 'tools');
  // "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
  if (present(body, 'tool_choice') && !hasTools) {
    return legacy("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  // "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
  // (openai/swarm#30, gpt-4o 2024)
  if (present(body, 'parallel_tool_calls') && !hasTools) {
    return legacy("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", 'parallel_tool_calls');
  }
  // "The 'stream_options' parameter is only allowed when 'stream' is enabled." (BerriAI/litellm#5803)
  if (present(body, 'stream_options') && body.stream !== true) {
    return legacy("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  // "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled." (conformance table)
  if (present(body, 'top_logprobs') && body.logprobs !== true) {
    return legacy("The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled.", 'top_logprobs');
  }
  // A named tool_choice must name a declared function: "Invalid value for 'function_call': no function named
  // 'never_declared' was specified in the 'functions' parameter." (sic, param function_call; conformance table 2026-09-04)
  const choice = body.tool_choice;
  if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === 'string') {
    const name = choice.function.name;
    const declared = (body.tools as Obj[]).some((t) => isObj(t.function) && t.function.name === name);
    if (!declared) return legacy(`Invalid value for 'function_call': no function named '${name}' was specified in the 'functions' parameter.`, 'function_call');
  }
  return null;
}

/** Validate a Chat Completions request body like api.openai.com. Returns null when OpenAI would accept it,
 *  otherwise the HTTP status and OpenAI's error envelope. */
export function checkChatRequest(body: unknown, options: CheckOptions = {}): RuleFailure | null {
  const b: Obj = isObj(body) ? body : {};
  // "you must provide a model parameter", param null, code null (danielmiessler/Fabric#239; conformance
  // table: it beats every other fault).
  if (!present(b, 'model') || b.model === '') return legacy('you must provide a model parameter', null);
  // "Missing required parameter: 'messages'." (SilasMarvin/lsp-ai#108; beats an unknown key)
  if (!present(b, 'messages')) return missingParam('messages');
  for (const key of Object.keys(b)) {
    if (KNOWN.has(key)) continue;
    return options.unknownParameterStyle === 'unknown_parameter'
      ? unknownParameter(key)
      : legacy(`Unrecognized request argument supplied: ${key}`, null);
  }
  if (typeof b.model !== 'string') return invalidType('model', 'a string', b.model);
  return checkFields(b) ?? checkCrossField(b) ?? checkHistory(b.messages as Obj[]);
}
