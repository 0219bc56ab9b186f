import { findJsonEnd, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, callShapesOf, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// GigaChat 3: the answer's text, then the message separator and a function-call turn:
//   Let me check.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Moscow"}}</s>
// (GigaChat 3.5 writes <|function_call|>{…} instead). The separator, the role header and a
// trailing </s> all belong to the block. One call per turn; its arguments must be an object.

const MESSAGE_SEP = '<|message_sep|>';
const ROLE_HEADER = 'function call<|role_sep|>';
const INLINE_MARKER = '<|function_call|>';
const END_OF_TURN = '</s>';

export const gigachatFormat = defineFormat({
  name: 'gigachat',
  triggers: '<f',
  detect: (text) => text.includes(ROLE_HEADER) || text.includes(INLINE_MARKER),
  matchAt(text, start, ctx, env): BlockMatch {
    let at = start;
    if (text[start] === 'f') {
      if (/\w/.test(env.prevChar)) return NONE;
    } else {
      const sep = literalAt(text, at, MESSAGE_SEP);
      const inline = literalAt(text, at, INLINE_MARKER);
      if (sep === 'partial' || inline === 'partial') return outOfText(env);
      if (inline === 'yes') return callAt(text, at + INLINE_MARKER.length, ctx, env);
      if (sep === 'no') return NONE;
      at = skipWhitespace(text, at + MESSAGE_SEP.length);
      if (at >= text.length) return outOfText(env);
    }
    const header = literalAt(text, at, ROLE_HEADER);
    if (header === 'no') return NONE;
    if (header === 'partial') return outOfText(env);
    return callAt(text, at + ROLE_HEADER.length, ctx, env);
  },
});

/** The call object after the marker, and a trailing end-of-turn token. */
function callAt(text: string, from: number, ctx: ParseContext, env: ScanEnv): BlockMatch {
  const at = skipWhitespace(text, from);
  if (at >= text.length) return outOfText(env);
  if (text[at] !== '{') return NONE;
  const jsonEnd = findJsonEnd(text, at);
  if (jsonEnd === 'incomplete') return env.final ? NONE : INCOMPLETE;
  if (jsonEnd === 'invalid') return NONE;
  const shapes = callShapesOf(parseJsonLenient(text.slice(at, jsonEnd), ctx.repairBudget), false);
  // GigaChat's template always writes an arguments object: a string there is no call (as vLLM's
  // gigachat3 parser has it), unlike the JSON formats that take it for the single string parameter.
  if (!shapes || shapes.some((shape) => typeof shape.args === 'string')) return { kind: 'none', skipTo: jsonEnd };
  let end = jsonEnd;
  const after = skipWhitespace(text, jsonEnd);
  const eot = literalAt(text, after, END_OF_TURN);
  if (eot === 'yes') end = after + END_OF_TURN.length;
  else if (!env.final && (eot === 'partial' || after >= text.length)) return INCOMPLETE;
  return callsFromShapes(shapes, ctx, end, end);
}
