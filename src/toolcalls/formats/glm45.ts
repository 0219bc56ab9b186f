import { findJsonEnd, isPlainObject, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import type { ParseContext, ParsedCall } from '../types.js';
import { defineFormat } from './define.js';
import { type Read, READ_INCOMPLETE, READ_NONE, ranOut, readBareName, typedArguments } from './markup.js';
import { NONE, indexFrom, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// GLM-4.5 / 4.6 / 4.7: the name right after <tool_call>, then key/value pairs (values are text,
// typed from the tool's schema as vLLM's glm4_moe parser does):
//   <tool_call>get_weather
//   <arg_key>city</arg_key>
//   <arg_value>Paris</arg_value>
//   </tool_call>
// <tool_call> is shared with Hermes ({json} after it) and Qwen3-Coder (<function=…>): this
// format claims the block only when a bare name follows and then <arg_key>, <tool_sep> (Hunyuan),
// a JSON object, or </tool_call>. The reader is shared with the Hunyuan wrapper.

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const SEP = '<tool_sep>';
const KEY_OPEN = '<arg_key>';
const KEY_CLOSE = '</arg_key>';
const VALUE_OPEN = '<arg_value>';
const VALUE_CLOSE = '</arg_value>';
/** GLM's stop token after a call; kept with the call when the provider left it in the text. */
const OBSERVATION = '<|observation|>';
const MAX_KEY = 256;

export const glm45Format = defineFormat({
  name: 'glm45',
  triggers: '<',
  detect: (text) => text.includes(OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    const open = literalAt(text, start, OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    const read = readArgCall(text, start, env, ctx.repairBudget);
    if (read.kind === 'incomplete') return { kind: 'incomplete' };
    if (read.kind === 'none') return NONE;
    const call = callOf(read.value, ctx);
    if (!call) return { kind: 'none', skipTo: read.end, rejectedNames: 1 };
    const observation = literalAt(text, read.end, OBSERVATION);
    if (observation === 'partial' && !env.final) return { kind: 'incomplete' };
    return { kind: 'calls', end: observation === 'yes' ? read.end + OBSERVATION.length : read.end, calls: [call] };
  },
});

/** A call as written: the name and either text pairs or a JSON object. */
export interface WrittenArgCall {
  name: string;
  pairs: Array<[string, string]>;
  json?: Record<string, unknown>;
}

/** Reads `<tool_call>name[<tool_sep>] (<arg_key>k</arg_key><arg_value>v</arg_value>)* </tool_call>` at `start`. */
export function readArgCall(text: string, start: number, env: ScanEnv, budget: RepairBudget): Read<WrittenArgCall> {
  if (literalAt(text, start, OPEN) !== 'yes') return READ_NONE;
  let at = skipWhitespace(text, start + OPEN.length);
  if (at >= text.length) return ranOut(env);
  const name = readBareName(text, at, env);
  if (name === 'incomplete') return READ_INCOMPLETE;
  if (name === undefined) return READ_NONE;
  const call: WrittenArgCall = { name: name.name, pairs: [] };
  at = name.end;
  const sep = literalAt(text, at, SEP);
  if (sep === 'partial') return ranOut(env);
  if (sep === 'yes') at += SEP.length;
  for (;;) {
    at = skipGap(text, at);
    if (at >= text.length || partialEscape(text, at)) return ranOut(env);
    const close = literalAt(text, at, CLOSE);
    const key = literalAt(text, at, KEY_OPEN);
    if (close === 'yes') return { kind: 'ok', value: call, end: at + CLOSE.length };
    if (close === 'partial' || key === 'partial') return ranOut(env);
    if (key === 'no') {
      if (text[at] !== '{' || call.pairs.length > 0 || call.json) return READ_NONE;
      const jsonEnd = findJsonEnd(text, at);
      if (jsonEnd === 'incomplete') return ranOut(env);
      if (jsonEnd === 'invalid') return READ_NONE;
      const json = parseJsonLenient(text.slice(at, jsonEnd), budget);
      if (!isPlainObject(json)) return READ_NONE;
      call.json = json;
      at = jsonEnd;
      continue;
    }
    if (call.json) return READ_NONE;
    const pair = readPair(text, at + KEY_OPEN.length, env);
    if (pair.kind !== 'ok') return pair;
    call.pairs.push(pair.value);
    at = pair.end;
  }
}

/**
 * Skips whitespace and written-out `\n` (a backslash and an `n`): GLM-4.6 answers that went through
 * one JSON encoding too many separate the name and the tags so, and SGLang's glm4_moe reads them.
 */
function skipGap(text: string, from: number): number {
  let at = skipWhitespace(text, from);
  while (text.startsWith('\\n', at)) at = skipWhitespace(text, at + 2);
  return at;
}

/** A backslash that ends the text so far: a written-out `\n` may be under way. */
function partialEscape(text: string, at: number): boolean {
  return text[at] === '\\' && at + 1 >= text.length;
}

/** `k</arg_key> <arg_value>v</arg_value>`, from just after <arg_key>. */
function readPair(text: string, from: number, env: ScanEnv): Read<[string, string]> {
  // Keys are parameter names: a closer that is not close by means this is not a key.
  let keyEnd = text.slice(from, from + MAX_KEY + KEY_CLOSE.length).indexOf(KEY_CLOSE);
  if (keyEnd < 0) return from + MAX_KEY + KEY_CLOSE.length <= text.length ? READ_NONE : ranOut(env);
  keyEnd += from;
  const key = text.slice(from, keyEnd).trim();
  if (key === '' || key.includes('<')) return READ_NONE;
  const valueAt = skipGap(text, keyEnd + KEY_CLOSE.length);
  const open = literalAt(text, valueAt, VALUE_OPEN);
  if (open === 'no') return valueAt >= text.length || partialEscape(text, valueAt) ? ranOut(env) : READ_NONE;
  if (open === 'partial') return ranOut(env);
  const valueStart = valueAt + VALUE_OPEN.length;
  const valueEnd = indexFrom(text, VALUE_CLOSE, valueStart);
  if (valueEnd < 0) return ranOut(env);
  return { kind: 'ok', value: [key, text.slice(valueStart, valueEnd)], end: valueEnd + VALUE_CLOSE.length };
}

/** The call for a declared tool; undefined when the name is not one. */
export function callOf(written: WrittenArgCall, ctx: ParseContext): ParsedCall | undefined {
  const name = ctx.resolveName(written.name);
  if (name === null) return undefined;
  return makeCall(written.name, written.json ?? typedArguments(written.pairs, name, ctx), ctx);
}
