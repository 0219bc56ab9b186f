import { findJsonEnd, isWhitespace, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, callShapesOf, callsFromShapes, indexFrom, literalAt, outOfText } from './shared.js';
import type { BlockMatch } from './types.js';

// Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": …, "arguments": {…}}</tool_call>, one block per
// call (some models put several objects in one block, comma-separated or one per line). The JSON is read string-aware (a "</tool_call>" inside an argument does not end it); a
// missing closing tag is tolerated once the JSON is complete.

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

export const hermesFormat = defineFormat({
  name: 'hermes',
  triggers: '<',
  detect: (text) => text.includes(OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    const open = literalAt(text, start, OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    const jsonStart = skipWhitespace(text, start + OPEN.length);
    if (jsonStart >= text.length) return outOfText(env);
    if (text[jsonStart] !== '{' && text[jsonStart] !== '[') return NONE; // maybe Qwen3-Coder XML, maybe prose

    const jsonEnd = findJsonEnd(text, jsonStart);
    if (typeof jsonEnd !== 'number') {
      if (jsonEnd === 'incomplete' && !env.final) return INCOMPLETE;
      return malformed(text, jsonStart, env.final);
    }
    const first = callShapesOf(parseJsonLenient(text.slice(jsonStart, jsonEnd), ctx.repairBudget), false);
    if (!first) {
      const end = blockEnd(text, jsonEnd, env.final);
      return end === 'incomplete' ? INCOMPLETE : { kind: 'none', skipTo: end };
    }
    // Several call objects in one block ({…}, {…} or one per line) are read as a sequence.
    const sequence = readCallSequence(text, jsonStart, env.final, false, ctx.repairBudget);
    if (sequence.kind === 'incomplete') return INCOMPLETE;
    const callsEnd = sequence.kind === 'shapes' ? sequence.end : jsonEnd;
    const end = blockEnd(text, callsEnd, env.final);
    if (end === 'incomplete') return INCOMPLETE;
    return callsFromShapes(sequence.kind === 'shapes' ? sequence.shapes : first, ctx, end, end);
  },
});

/** Where the block ends: after </tool_call> (past stray closing brackets), or at the JSON's end. */
function blockEnd(text: string, jsonEnd: number, final: boolean): number | 'incomplete' {
  let at = jsonEnd;
  // Over-closed JSON (`{…}}</tool_call>`): the stray brackets belong to the block.
  while (at < text.length && (text[at] === '}' || text[at] === ']' || isWhitespace(text.charCodeAt(at)))) at++;
  const close = literalAt(text, at, CLOSE);
  if (close === 'yes') return at + CLOSE.length;
  if (close === 'partial' || at >= text.length) return final ? text.length : 'incomplete';
  return jsonEnd; // closing tag missing, more text follows
}

/** A broken block stays content as a whole, up to its closing tag when there is one. */
function malformed(text: string, from: number, final: boolean): BlockMatch {
  const close = indexFrom(text, CLOSE, from);
  if (close >= 0) return { kind: 'none', skipTo: close + CLOSE.length };
  return final ? NONE : INCOMPLETE;
}
