import { skipWhitespace } from '../text/json-scan.js';
import { readPythonCallList } from '../text/python-literal.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Pythonic calls (Llama 3.2 / Llama 4): [get_weather(city='SF'), get_time()], optionally wrapped
// in <|python_start|>…<|python_end|>. Without the wrapper the list must open the answer and end
// its line — a bracketed call in the middle of prose is an example, not a call.

const START = '<|python_start|>';
const END = '<|python_end|>';

export const pythonicFormat = defineFormat({
  name: 'pythonic',
  triggers: '[<',
  detect: (text) => text.includes('(') && text.includes('['),
  matchAt(text, start, ctx, env): BlockMatch {
    let at = start;
    const wrapped = text[start] === '<';
    if (wrapped) {
      const marker = literalAt(text, start, START);
      if (marker === 'no') return NONE;
      if (marker === 'partial') return outOfText(env);
      at = skipWhitespace(text, start + START.length);
      if (at >= text.length) return outOfText(env);
      if (text[at] !== '[') return NONE;
    } else if (!env.atAnswerStart || !env.atLineStart) {
      return NONE;
    } else {
      // Cheap rejection of ordinary brackets before the full reader runs: `[` + identifier + `(`.
      const rest = text.slice(at);
      if (!/^\[\s*[A-Za-z_][\w.]*\s*\(/.test(rest)) return /^\[\s*(?:[A-Za-z_][\w.]*\s*)?$/.test(rest) ? outOfText(env) : NONE;
    }
    const list = readPythonCallList(text, at);
    if (list.kind === 'eof') return outOfText(env);
    if (list.kind === 'error') return NONE;
    const end = blockEnd(text, list.end, wrapped, env);
    if (end === 'incomplete') return INCOMPLETE;
    if (end === 'none') return NONE;
    return callsFromShapes(list.calls, ctx, end, end);
  },
});

function blockEnd(text: string, listEnd: number, wrapped: boolean, env: ScanEnv): number | 'incomplete' | 'none' {
  if (wrapped) {
    const at = skipWhitespace(text, listEnd);
    const marker = literalAt(text, at, END);
    if (marker === 'yes') return at + END.length;
    if (!env.final && (marker === 'partial' || at >= text.length)) return 'incomplete';
    return marker === 'partial' ? text.length : listEnd;
  }
  // Unwrapped: nothing else may follow on the list's line.
  let at = listEnd;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
  if (at >= text.length) return env.final ? listEnd : 'incomplete';
  return text[at] === '\n' ? listEnd : 'none';
}
