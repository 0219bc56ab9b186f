import { skipWhitespace } from '../text/json-scan.js';
import { readPythonCallList } from '../text/python-literal.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Pythonic calls (Llama 3.2 / Llama 4): [get_weather(city='SF'), get_time()], optionally wrapped
// in <|python_start|>…<|python_end|>. Without the wrapper the list must either open the answer
// and end its line, or close the answer (nothing after it) standing at a line start, after a
// colon ("Here's the call: [get_weather(city='Paris')]") or starting a sentence ("Let me check.
// [get_weather(city='Oslo')]") — a bracketed call in the middle of prose is an example, not a call. A call in the list whose arguments cannot be read is left out
// and counted (`malformed`); the others stay calls. Never a guess inside reasoning.

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
    } else if (env.inReasoning === true || !(env.atLineStart || afterColon(env) || afterSentence(env))) {
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
    // A call left out must still be a call to a declared tool: `[see (note), f(a=1)]` is no list of calls.
    if (list.malformed.some((name) => ctx.resolveName(name) === null)) return NONE;
    const match = callsFromShapes(list.calls, ctx, end, end);
    return match.kind === 'calls' && list.malformed.length > 0 ? { ...match, malformed: list.malformed.length } : match;
  },
});

/** Is `start` preceded on its line by a colon and spaces ("Here's the call: [")? */
function afterColon(env: ScanEnv): boolean {
  return env.prevNonBlank === ':';
}

/** Is `start` a new sentence: after `.`, `!` or `?` and a space ("Let me check. [")? */
function afterSentence(env: ScanEnv): boolean {
  return (env.prevChar === ' ' || env.prevChar === '\t') && env.prevNonBlank !== undefined && '.!?'.includes(env.prevNonBlank);
}

function blockEnd(text: string, listEnd: number, wrapped: boolean, env: ScanEnv): number | 'incomplete' | 'none' {
  if (wrapped) {
    const at = skipWhitespace(text, listEnd);
    const marker = literalAt(text, at, END);
    if (marker === 'yes') return at + END.length;
    if (!env.final && (marker === 'partial' || at >= text.length)) return 'incomplete';
    return marker === 'partial' ? text.length : listEnd;
  }
  // Unwrapped at the answer's start (and a line start): nothing else may follow on the list's line.
  if (env.atAnswerStart && env.atLineStart) {
    let at = listEnd;
    while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
    if (at >= text.length) return env.final ? listEnd : 'incomplete';
    return text[at] === '\n' ? listEnd : 'none';
  }
  // After prose: nothing at all may follow.
  if (skipWhitespace(text, listEnd) < text.length) return 'none';
  return env.final ? listEnd : 'incomplete';
}
