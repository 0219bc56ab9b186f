import type { RawChatRequest } from './chat-types.js';
import { errors, type GatewayError } from '../errors.js';

// Strict about what the gateway itself needs, lenient about everything else real clients send:
// unknown keys pass through, shapes the repair passes fix are not rejected here. What passes is a
// RawChatRequest (chat-types.ts): exactly what was checked; the repair step makes the strict type.
//
// A hand-written guard, not a schema library: it runs on every request over the whole history
// (zod's object walk was a visible share of the JSON path's CPU), and it checks only
// the fields below, in this order, reporting the first problem in OpenAI's wording.

const ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** How a value is named in "expected X, received Y" (zod's wording, which clients and docs already see). */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : 'number';
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function missing(param: string): GatewayError {
  return errors.invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function invalid(param: string, detail: string): GatewayError {
  return errors.invalidRequest(`Invalid '${param}': ${detail}.`, param, 'invalid_value');
}

/** A type error, or "missing" when the value is absent. */
function wrongType(param: string, expected: string, value: unknown): GatewayError {
  return value === undefined ? missing(param) : invalid(param, `Invalid input: expected ${expected}, received ${received(value)}`);
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && !Number.isNaN(value);
}

/** An optional integer (null = absent): safe integer, then the bounds. */
function checkInteger(body: Record<string, unknown>, param: string, min?: number, max?: number): void {
  const value = body[param];
  if (value === null || value === undefined) return;
  if (!isNumber(value)) throw wrongType(param, 'number', value);
  if (!Number.isInteger(value) || !Number.isFinite(value)) throw invalid(param, 'Invalid input: expected int, received number');
  if (value > Number.MAX_SAFE_INTEGER) throw invalid(param, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`);
  if (value < Number.MIN_SAFE_INTEGER) throw invalid(param, `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`);
  if (min !== undefined && value < min) throw invalid(param, `Too small: expected number to be >=${min}`);
  if (max !== undefined && value > max) throw invalid(param, `Too big: expected number to be <=${max}`);
}

function checkMessages(value: unknown): void {
  if (!Array.isArray(value)) throw wrongType('messages', 'array', value);
  for (let i = 0; i < value.length; i++) {
    const message: unknown = value[i];
    if (!isObject(message)) throw wrongType(`messages[${i}]`, 'object', message);
    const role = message.role;
    if (typeof role === 'string' && ROLES.has(role)) {
      dropAbsent(message, KEEP_NULL_IN_MESSAGE);
      // No repair pass touches a message's name: one that is not a string is the client's to fix.
      const name = message.name;
      if (name !== undefined && typeof name !== 'string') throw wrongType(`messages[${i}].name`, 'string', name);
      const calls = message.tool_calls;
      if (calls !== undefined && !Array.isArray(calls)) throw wrongType(`messages[${i}].tool_calls`, 'array', calls);
      continue;
    }
    const param = `messages[${i}].role`;
    if (role === undefined) throw missing(param);
    const shown = (typeof role === 'string' ? role : String(JSON.stringify(role))).slice(0, 100);
    throw errors.invalidRequest(`Invalid value: '${shown}'. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool', and 'function'.`, param, 'invalid_value');
  }
  if (value.length === 0) {
    throw errors.invalidRequest(`Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.`, 'messages', 'invalid_value');
  }
}

function checkObjectArray(body: Record<string, unknown>, param: string): void {
  const value = body[param];
  if (value === null || value === undefined) return;
  if (!Array.isArray(value)) throw wrongType(param, 'array', value);
  for (let i = 0; i < value.length; i++) if (!isObject(value[i])) throw wrongType(`${param}[${i}]`, 'object', value[i]);
}

function checkOptional(body: Record<string, unknown>, param: string, type: 'boolean' | 'number'): void {
  const value = body[param];
  if (value === null || value === undefined) return;
  if (type === 'number' ? !isNumber(value) : typeof value !== type) throw wrongType(param, type, value);
}

/** `content: null` says something (an assistant turn of calls only); any other null means absent. */
const KEEP_NULL_IN_MESSAGE: ReadonlySet<string> = new Set(['content']);
const KEEP_NONE: ReadonlySet<string> = new Set();
/** Response-only fields that say nothing when empty (a Python SDK's model_dump() writes them). */
const EMPTY_MEANS_ABSENT = ['annotations'];

/**
 * Nulls mean "absent" to every client library (an SDK's model_dump() writes them, toolgate's own
 * answers carry `refusal: null`): they are dropped here, once, so no later step sees them and no
 * repair counts them. Empty response-only lists too.
 */
function dropAbsent(object: Record<string, unknown>, keep: ReadonlySet<string>): void {
  for (const key in object) {
    if (object[key] === null && !keep.has(key)) delete object[key];
  }
  for (const key of EMPTY_MEANS_ABSENT) {
    const value = object[key];
    if (Array.isArray(value) && value.length === 0) delete object[key];
  }
}

/**
 * `type: "function"` is the only type a function tool or a named tool_choice can have: clients that
 * leave it out (the Mistral client's tools, the Hugging Face client's tool_choice) mean it. Spelled
 * out here, in place, like a null dropped: nothing a client means changes, so nothing is counted.
 */
function spellOutFunctionType(body: Record<string, unknown>): void {
  const tools = body.tools;
  if (Array.isArray(tools)) {
    for (const tool of tools) {
      if (isObject(tool) && tool.type === undefined && isObject(tool.function) && typeof tool.function.name === 'string' && tool.function.name !== '') tool.type = 'function';
    }
  }
  const choice = body.tool_choice;
  if (isObject(choice) && choice.type === undefined && isObject(choice.function) && typeof choice.function.name === 'string') choice.type = 'function';
}

/** Validates a chat completions body; throws the catalogue's 400 naming the field. */
export function parseChatRequest(body: unknown): RawChatRequest {
  if (!isObject(body)) {
    throw errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_body');
  }
  const model = body.model;
  if (typeof model !== 'string') throw wrongType('model', 'string', model);
  if (model === '') throw invalid('model', 'Too small: expected string to have >=1 characters');
  dropAbsent(body, KEEP_NONE);
  checkMessages(body.messages);
  checkOptional(body, 'stream', 'boolean');
  const streamOptions = body.stream_options;
  if (streamOptions !== null && streamOptions !== undefined) {
    if (!isObject(streamOptions)) throw wrongType('stream_options', 'object', streamOptions);
    const include = streamOptions.include_usage;
    if (include !== null && include !== undefined && typeof include !== 'boolean') throw wrongType('stream_options.include_usage', 'boolean', include);
  }
  checkObjectArray(body, 'tools');
  checkObjectArray(body, 'functions');
  spellOutFunctionType(body);
  const choice = body.tool_choice;
  if (choice !== undefined && typeof choice !== 'string' && !isObject(choice)) {
    throw invalid('tool_choice', `Invalid input: expected string or object, received ${received(choice)}`);
  }
  if (isObject(choice) && typeof choice.type !== 'string' && !(typeof choice.name === 'string' && choice.name !== '')) {
    throw invalid('tool_choice', `Invalid input: expected "none", "auto", "required" or {"type": "function", "function": {"name": …}}`);
  }
  checkInteger(body, 'n', 1, 128);
  checkOptional(body, 'temperature', 'number');
  checkInteger(body, 'max_tokens');
  checkInteger(body, 'max_completion_tokens');
  return body as RawChatRequest;
}
