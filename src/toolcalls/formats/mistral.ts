import { findJsonEnd, isPlainObject, isWhitespace, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { NONE, callShapesOf, callsFromShapes, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch } from './types.js';

// Mistral: `[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]` (tokenizers before v11) and
// `[TOOL_CALLS]name{args}` / `[TOOL_CALLS]name[ARGS]{args}` / `…name[CALL_ID]id[ARGS]{args}`
// (v11+, one marker per call). Each marker starts its own block.

const MARKER = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const MAX_NAME = 256;

export const mistralFormat = defineFormat({
  name: 'mistral',
  triggers: '[',
  detect: (text) => text.includes(MARKER),
  matchAt(text, start, ctx, env): BlockMatch {
    const marker = literalAt(text, start, MARKER);
    if (marker === 'no') return NONE;
    if (marker === 'partial') return outOfText(env);
    let at = skipWhitespace(text, start + MARKER.length);
    if (at >= text.length) return outOfText(env);

    if (text[at] === '[' || text[at] === '{') {
      const end = findJsonEnd(text, at);
      if (end === 'incomplete') return outOfText(env);
      if (end === 'invalid') return NONE;
      const shapes = callShapesOf(parseJsonLenient(text.slice(at, end)), false);
      return shapes ? callsFromShapes(shapes, ctx, end, end) : { kind: 'none', skipTo: end };
    }

    // v11+: the name runs up to `{` or a `[…]` control token.
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
    const args = parseJsonLenient(text.slice(at, end));
    if (!isPlainObject(args)) return { kind: 'none', skipTo: end };
    const call = makeCall(writtenName, args, ctx);
    return call ? { kind: 'calls', end, calls: [call] } : { kind: 'none', skipTo: end, rejectedNames: 1 };
  },
});
