import { findJsonEnd, isPlainObject, isWhitespace, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, callShapesOf, callsFromShapes, literalAt, makeCall, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Mistral: `[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]` (tokenizers before v11) and
// `[TOOL_CALLS]name{args}` / `[TOOL_CALLS]name[ARGS]{args}` / `…name[CALL_ID]id[ARGS]{args}`
// (v11+, one marker per call). Each marker starts its own block.

const MARKER = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const MAX_NAME = 256;
/** How far after [TOOL_CALLS] the call array may start. */
const MAX_JUNK = 80;

export const mistralFormat = defineFormat({
  name: 'mistral',
  triggers: '[',
  detect: (text) => text.includes(MARKER),
  matchAt(text, start, ctx, env): BlockMatch {
    const marker = literalAt(text, start, MARKER);
    if (marker === 'no') return NONE;
    if (marker === 'partial') return outOfText(env);
    const at = skipWhitespace(text, start + MARKER.length);
    // The marker and nothing after it: a call begun and never written. The special token is no
    // prose; it is removed and counted as a call that could not be read.
    if (at >= text.length) return env.final ? { kind: 'segments', end: text.length, segments: [], malformed: 1 } : INCOMPLETE;

    if (text[at] === '[' || text[at] === '{') {
      const end = findJsonEnd(text, at);
      if (end === 'incomplete') return outOfText(env);
      if (end === 'invalid') return NONE;
      const shapes = callShapesOf(parseJsonLenient(text.slice(at, end), ctx.repairBudget), false);
      return shapes ? callsFromShapes(shapes, ctx, end, end) : { kind: 'none', skipTo: end };
    }

    const named = namedCall(text, at, ctx, env);
    // Not a v11 call either: look past a little junk for the call array (see junkThenCalls).
    if (named.kind === 'none' && !named.rejectedNames && named.skipTo === undefined) return junkThenCalls(text, start + MARKER.length, ctx, env);
    return named;
  },
});

/** v11+: `name{args}`, `name[ARGS]{args}`, `name[CALL_ID]id[ARGS]{args}`; the name runs up to `{` or a control token. */
function namedCall(text: string, from: number, ctx: ParseContext, env: ScanEnv): BlockMatch {
  let at = from;
  const nameStart = at;
  while (at < text.length && text[at] !== '{' && text[at] !== '[' && !isWhitespace(text.charCodeAt(at))) at++;
  if (at - nameStart > MAX_NAME) return NONE;
  if (at >= text.length) return outOfText(env);
  const writtenName = text.slice(nameStart, at);
  if (writtenName === '') return NONE;
  for (;;) {
    at = skipWhitespace(text, at);
    if (at >= text.length) return outOfText(env);
    if (text[at] !== '[') break;
    const args = literalAt(text, at, ARGS);
    const callId = literalAt(text, at, CALL_ID);
    if (args === 'partial' || callId === 'partial') return outOfText(env);
    if (args === 'yes') at += ARGS.length;
    else if (callId === 'yes') {
      at += CALL_ID.length;
      while (at < text.length && /[A-Za-z0-9]/.test(text[at])) at++;
    } else return NONE;
  }
  if (text[at] !== '{') return NONE;
  const end = findJsonEnd(text, at);
  if (end === 'incomplete') return outOfText(env);
  if (end === 'invalid') return NONE;
  const args = parseJsonLenient(text.slice(at, end), ctx.repairBudget);
  if (!isPlainObject(args)) return { kind: 'none', skipTo: end };
  const call = makeCall(writtenName, args, ctx);
  return call ? { kind: 'calls', end, calls: [call] } : { kind: 'none', skipTo: end, rejectedNames: 1 };
}

/**
 * `[TOOL_CALLS]` is Mistral's own control token, so a call array written a little after it still
 * counts: `[TOOL_CALLS]json\n[{…}]`, `[TOOL_CALLS] Here: [{…}]`, `[TOOL_CALLS]```json\n[{…}]\n````.
 * The first `[{` or `{"` within MAX_JUNK characters must be the calls (declared names, call
 * shape); the junk and a closing fence go with them. Anything else stays content.
 */
function junkThenCalls(text: string, from: number, ctx: ParseContext, env: ScanEnv): BlockMatch {
  const limit = Math.min(text.length, from + MAX_JUNK);
  for (let at = from; at < limit; at++) {
    const ch = text[at];
    if (ch !== '[' && ch !== '{') continue;
    const inner = skipWhitespace(text, at + 1);
    if (inner >= text.length) return outOfText(env);
    if (ch === '[' && text.startsWith(MARKER, at)) return NONE;
    if (text[inner] !== (ch === '[' ? '{' : '"')) continue;
    const end = findJsonEnd(text, at);
    if (end === 'incomplete') return outOfText(env);
    if (end === 'invalid') return NONE;
    const shapes = callShapesOf(parseJsonLenient(text.slice(at, end), ctx.repairBudget), false);
    if (!shapes) return NONE;
    const blockEnd = closingFenceEnd(text, end, text.slice(from, at).includes('```'), env);
    if (blockEnd === 'incomplete') return INCOMPLETE;
    return callsFromShapes(shapes, ctx, blockEnd, blockEnd);
  }
  return limit >= text.length && text.length - from < MAX_JUNK ? outOfText(env) : NONE;
}

/** A fence opened in the junk closes after the calls: its closing backticks belong to the block. */
function closingFenceEnd(text: string, end: number, fenced: boolean, env: ScanEnv): number | 'incomplete' {
  if (!fenced) return end;
  const at = skipWhitespace(text, end);
  const fence = literalAt(text, at, '```');
  if (fence === 'yes') return at + 3;
  if (!env.final && (fence === 'partial' || at >= text.length)) return 'incomplete';
  return end;
}
