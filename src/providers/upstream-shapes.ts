import type { ChatChunk, ChatCompletion } from '../api/chat-types.js';
import { withRawJson } from '../api/raw-json.js';
import { errors } from '../errors.js';

// What an OpenAI-shaped upstream must send for the pipeline to read it: checked on every body and
// every stream chunk (as the Vercel AI SDK does), so a malformed answer is a 502
// `upstream_bad_response` naming what was wrong, never a TypeError deep in normalization (500).
// Loose objects: fields the gateway does not read pass through untouched.
//
// Written out by hand, not with a schema library (zod's walk cost a JSON request several µs). The
// completion check accepts exactly what this zod schema did and names the first problem in its
// words (test/providers/upstream-shapes.test.ts holds the two together):
//   looseObject({ choices: array(looseObject({ message: looseObject({
//     content: union([string, array(unknown), null]).optional(),
//     tool_calls: array(looseObject({ function: looseObject({}).optional() })).nullable().optional() }) })),
//   usage: looseObject({}).nullable().optional() })

/**
 * A chat completion body, or a 502 naming the first problem. With `text` (what it was parsed from),
 * the completion remembers it for a byte-for-byte relay, unless a key had to be filled in: then the
 * text no longer says what the completion holds, and it is serialized afresh.
 */
export function checkedCompletion(provider: string, value: unknown, text?: string): ChatCompletion {
  const problem = completionProblem(value);
  if (problem !== undefined) throw errors.upstreamBadResponse(provider, `the completion is not OpenAI-shaped (${problem})`);
  const completion = value as ChatCompletion;
  let filled = false;
  for (let i = 0; i < completion.choices.length; i++) filled = withDefaultKeys(completion.choices[i], i) || filled;
  return text === undefined || filled ? completion : withRawJson(completion, text);
}

/**
 * The keys a provider may leave out of a choice, set to what their absence means: `finish_reason`
 * null (not finished; '' says the same), `index` the choice's position (xAI, Cerebras and others
 * send neither until they matter). Set once here, where every upstream body and chunk is read, so
 * nothing downstream can take an absent key for a value (`undefined !== null` read as a finish).
 * The upstream's text, relayed when nothing changes, says the same thing without them.
 */
function withDefaultKeys(choice: { finish_reason: unknown; index: unknown }, position: number): boolean {
  let filled = false;
  if (choice.finish_reason === undefined || choice.finish_reason === '') {
    choice.finish_reason = null;
    filled = true;
  }
  if (choice.index === undefined || choice.index === null) {
    choice.index = position;
    filled = true;
  }
  return filled;
}

/** zod's "expected X, received Y" for a value of the wrong type. */
function expected(path: string, kind: string, value: unknown): string {
  return `${path}: Invalid input: expected ${kind}, received ${zodKindOf(value)}`;
}

/** The first thing wrong with a completion body, as zod's `path: message`; undefined when it is fine. */
export function completionProblem(value: unknown): string | undefined {
  if (!isObject(value)) return expected('the body', 'object', value);
  const choices = value.choices;
  if (!Array.isArray(choices)) return expected('choices', 'array', choices);
  for (let i = 0; i < choices.length; i++) {
    const choice: unknown = choices[i];
    if (!isObject(choice)) return expected(`choices.${i}`, 'object', choice);
    const message = choice.message;
    if (!isObject(message)) return expected(`choices.${i}.message`, 'object', message);
    const content = message.content;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) return `choices.${i}.message.content: Invalid input`;
    const calls = message.tool_calls;
    if (calls === undefined || calls === null) continue;
    if (!Array.isArray(calls)) return expected(`choices.${i}.message.tool_calls`, 'array', calls);
    for (let j = 0; j < calls.length; j++) {
      const call: unknown = calls[j];
      if (!isObject(call)) return expected(`choices.${i}.message.tool_calls.${j}`, 'object', call);
      if (call.function !== undefined && !isObject(call.function)) return expected(`choices.${i}.message.tool_calls.${j}.function`, 'object', call.function);
    }
  }
  const usage = value.usage;
  if (usage !== undefined && usage !== null && !isObject(usage)) return expected('usage', 'object', usage);
  return undefined;
}

/** How zod names a value's type in its messages. */
function zodKindOf(value: unknown): string {
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return kindOf(value);
}

/**
 * One stream chunk, or a 502 naming the first problem; the same object. With `text` (the event it
 * was parsed from), it remembers that text for a byte-for-byte relay unless a key had to be filled
 * in (clients need the keys: the openai SDK's stream helper loses a choice without its index).
 */
export function checkedChunk(provider: string, value: unknown, text?: string): ChatChunk {
  // A chunk that carries only usage (or nothing) may leave `choices` out or send null: no choices.
  if (isObject(value) && (value.choices === undefined || value.choices === null)) value.choices = [];
  const problem = chunkProblem(value);
  if (problem !== undefined) throw errors.upstreamBadResponse(provider, `a stream chunk is not OpenAI-shaped (${problem})`);
  const chunk = value as ChatChunk;
  const choices = chunk.choices;
  let filled = false;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i];
    if (choice.delta === undefined || choice.delta === null) {
      choice.delta = {};
      filled = true;
    }
    filled = withDefaultKeys(choice, i) || filled;
  }
  return text === undefined || filled ? chunk : withRawJson(chunk, text);
}

// The chunk check runs once per streamed event, so it is written out by hand (a schema library
// costs several times a JSON.parse per event). It accepts exactly what the completion schema's
// streaming twin would: `choices` an array of objects whose optional `delta` is an object with
// `content` a string, array or null and `tool_calls` null or an array of objects whose optional
// `function` is an object; `usage` absent, null or an object. Other fields pass untouched.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first thing wrong with a chunk, as `path: what was expected`; undefined when it is fine. */
export function chunkProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'the body: expected object';
  const choices = value.choices;
  if (!Array.isArray(choices)) return `choices: expected array, received ${kindOf(choices)}`;
  for (let i = 0; i < choices.length; i++) {
    const choice: unknown = choices[i];
    if (!isObject(choice)) return `choices.${i}: expected object, received ${kindOf(choice)}`;
    const delta = choice.delta;
    if (delta === undefined || delta === null) continue;
    if (!isObject(delta)) return `choices.${i}.delta: expected object, received ${kindOf(delta)}`;
    const content = delta.content;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
      return `choices.${i}.delta.content: expected string, array or null, received ${kindOf(content)}`;
    }
    const calls = delta.tool_calls;
    if (calls === undefined || calls === null) continue;
    if (!Array.isArray(calls)) return `choices.${i}.delta.tool_calls: expected array, received ${kindOf(calls)}`;
    for (let j = 0; j < calls.length; j++) {
      const call: unknown = calls[j];
      if (!isObject(call)) return `choices.${i}.delta.tool_calls.${j}: expected object, received ${kindOf(call)}`;
      if (call.function !== undefined && !isObject(call.function)) return `choices.${i}.delta.tool_calls.${j}.function: expected object, received ${kindOf(call.function)}`;
    }
  }
  const usage = value.usage;
  if (usage !== undefined && usage !== null && !isObject(usage)) return `usage: expected object, received ${kindOf(usage)}`;
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
