import { z } from 'zod';
import type { ChatRequest } from './chat-types.js';
import { errors } from '../errors.js';

// Strict about what the gateway itself needs, lenient about everything else real clients send:
// unknown keys pass through (`loose`), shapes the repair passes fix are not rejected here.

const message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
});

const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(z.looseObject({})).nullish(),
  functions: z.array(z.looseObject({})).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  temperature: z.number().nullish(),
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().nullish(),
});

function paramOf(path: PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** What the body holds at an issue's path (zod 4 leaves `issue.input` out unless asked). */
function valueAt(body: unknown, path: PropertyKey[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function isMissing(issue: z.core.$ZodIssue, body: unknown): boolean {
  return issue.code === 'invalid_type' && valueAt(body, issue.path) === undefined;
}

function describe(issue: z.core.$ZodIssue, body: unknown): string {
  const param = paramOf(issue.path);
  if (isMissing(issue, body)) return `Missing required parameter: '${param}'.`;
  if (issue.code === 'invalid_value' && param.endsWith('.role')) {
    return `Invalid value: '${String(issue.input)}'. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool', and 'function'.`;
  }
  if (issue.code === 'too_small' && param === 'messages') return `Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.`;
  return `Invalid '${param}': ${issue.message}.`;
}

/** Validates a chat completions body; throws the catalogue's 400 naming the field. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_body');
  }
  const result = chatRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const missing = isMissing(issue, body);
    throw errors.invalidRequest(describe(issue, body), paramOf(issue.path) || null, missing ? 'missing_required_parameter' : 'invalid_value');
  }
  // Nulls mean "absent" to every client library; drop them so later steps see one shape.
  const request = result.data as ChatRequest;
  for (const key of ['stream', 'stream_options', 'tools', 'functions'] as const) {
    if (request[key] === null) delete request[key];
  }
  return request;
}
