import { skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, callsFromShapes, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// JSON tool calls with no marker: {"name": …, "arguments"|"parameters": {…}} (several separated
// by `;`, `,` or newlines, or an array), as Llama 3 without <|python_tag|> and many small models
// write them. Fenced ```json blocks holding only such calls are handled by the scanner under this
// format's name. To tell a call from JSON that merely looks like one, a bare block must start a
// line, hold only call-shaped objects (strict keys, an arguments key), and either open the answer
// (ending its line) or close it (nothing after it).

export const jsonFormat = defineFormat({
  name: 'json',
  triggers: '{[',
  detect: (text) => text.includes('name') && (text.includes('{') || text.includes('[')),
  matchAt(text, start, ctx, env): BlockMatch {
    // A guess: never inside reasoning.
    if (!env.atLineStart || env.inReasoning === true) return NONE;
    const first = skipWhitespace(text, start + 1);
    if (first >= text.length) return outOfText(env);
    // `{` must open a key, `[` must open an object: quick exit for ordinary brackets in prose.
    const expected = text[start] === '{' ? text[first] === '"' || text[first] === "'" || text[first] === '}' : text[first] === '{';
    if (!expected) return NONE;
    const sequence = readCallSequence(text, start, env.final, true, ctx.repairBudget);
    if (sequence.kind === 'incomplete') return INCOMPLETE;
    if (sequence.kind === 'invalid') return NONE;
    const placed = placement(text, sequence.end, env);
    if (placed !== 'ok') return placed === 'incomplete' ? INCOMPLETE : NONE;
    return callsFromShapes(sequence.shapes, ctx, sequence.end);
  },
});

function placement(text: string, end: number, env: ScanEnv): 'ok' | 'incomplete' | 'none' {
  if (env.atAnswerStart) {
    let at = end;
    while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
    if (at >= text.length) return env.final ? 'ok' : 'incomplete';
    return text[at] === '\n' ? 'ok' : 'none';
  }
  const after = skipWhitespace(text, end);
  if (after < text.length) return 'none';
  return env.final ? 'ok' : 'incomplete';
}
