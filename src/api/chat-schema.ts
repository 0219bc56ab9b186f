import type { RawChatRequest } from './chat-types.js';
import { errors, type GatewayError } from '../errors.js';

// Strict about what the gateway itself needs, lenient about everything else real clients send:
// unknown keys pass through, shapes the repair passes fix are not rejected here. What passes is a
// RawChatRequest (chat-types.ts): exactly what was checked; the repair step makes the strict type.
//
// A hand-written guard, not a schema library: it runs on every request over the whole history
// (zod's object walk was a visible share of the JSON path's CPU, issue 17), and it checks only
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
      // No repair pass touches a message's name: one that is not a string is the client's to fix.
      const name = message.name;
      if (name !== undefined && name !== null && typeof name !== 'string') throw wrongType(`messages[${i}].name`, 'string', name);
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

/** Validates a chat completions body; throws the catalogue's 400 naming the field. */
export function parseChatRequest(body: unknown): RawChatRequest {
  if (!isObject(body)) {
    throw errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_body');
  }
  const model = body.model;
  if (typeof model !== 'string') throw wrongType('model', 'string', model);
  if (model === '') throw invalid('model', 'Too small: expected string to have >=1 characters');
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
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null && typeof choice !== 'string' && !isObject(choice)) {
    throw invalid('tool_choice', `Invalid input: expected string or object, received ${received(choice)}`);
  }
  checkInteger(body, 'n', 1, 128);
  checkOptional(body, 'temperature', 'number');
  checkInteger(body, 'max_tokens');
  checkInteger(body, 'max_completion_tokens');
  // Nulls mean "absent" to every client library; drop them so later steps see one shape.
  for (const key of ['stream', 'stream_options', 'tools', 'functions'] as const) {
    if (body[key] === null) delete body[key];
  }
  return body as RawChatRequest;
}
