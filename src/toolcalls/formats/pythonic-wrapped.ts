import { skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../repair/bounded-json.js';
import { readPythonCallList } from '../text/python-literal.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, type CallShape, callsFromShapes, indexFrom, literalAt, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Pythonic calls inside a model's wrapper tokens:
//   LFM2:   <|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|>
//           (LFM2 also writes the JSON form [{"name": …, "arguments": …}] between the same tokens)
//   OLMo 3: <function_calls>get_weather(city="Paris")\nget_time(zone=null)</function_calls>
//           (one call per line, JSON constants allowed; a bracketed list is read too)
// The wrapper is what makes these calls: without it, a pythonic list is the pythonic format's.

const LFM2_OPEN = '<|tool_call_start|>';
const LFM2_CLOSE = '<|tool_call_end|>';
const OLMO_OPEN = '<function_calls>';
const OLMO_CLOSE = '</function_calls>';

export const lfm2Format = defineFormat({
  name: 'lfm2',
  triggers: '<',
  detect: (text) => text.includes(LFM2_OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    const open = literalAt(text, start, LFM2_OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    const at = skipWhitespace(text, start + LFM2_OPEN.length);
    if (at >= text.length) return outOfText(env);
    const listed = readListAt(text, at, env, indexFrom(text, LFM2_OPEN, at), ctx.repairBudget);
    if (listed.kind !== 'calls') return listed.kind === 'incomplete' ? INCOMPLETE : NONE;
    const end = closerEnd(text, listed.end, LFM2_CLOSE, env);
    if (end === 'incomplete') return INCOMPLETE;
    return listedCalls(listed, ctx, end);
  },
});

/** `malformed`: names of pythonic calls left out because their arguments could not be read. */
type Listed = { kind: 'calls'; shapes: CallShape[]; end: number; malformed: string[] } | { kind: 'incomplete' } | { kind: 'none' };

/**
 * `[call(…), …]` in Python or JSON syntax, or JSON objects, starting at `at`. A pythonic list must
 * end before `nextOpener` (the wrapper's next opener, -1: none): a repeated opener stays linear.
 */
function readListAt(text: string, at: number, env: ScanEnv, nextOpener: number, budget: RepairBudget): Listed {
  const first = text[at];
  const afterBracket = first === '[' ? skipWhitespace(text, at + 1) : at;
  if (afterBracket >= text.length) return env.final ? { kind: 'none' } : { kind: 'incomplete' };
  if (text[afterBracket] === '{') {
    const sequence = readCallSequence(text, at, env.final, false, budget);
    if (sequence.kind === 'shapes') return { kind: 'calls', shapes: sequence.shapes, end: sequence.end, malformed: [] };
    return sequence.kind === 'incomplete' ? { kind: 'incomplete' } : { kind: 'none' };
  }
  if (first !== '[') return { kind: 'none' };
  const list = readPythonCallList(text, at, nextOpener < 0 ? text.length : nextOpener);
  if (list.kind === 'eof') return env.final || nextOpener >= 0 ? { kind: 'none' } : { kind: 'incomplete' };
  if (list.kind === 'error') return { kind: 'none' };
  return { kind: 'calls', shapes: list.calls, end: list.end, malformed: list.malformed };
}

/** The calls of a list; calls left out for unreadable arguments are counted, and must name declared tools. */
function listedCalls(listed: Listed & { kind: 'calls' }, ctx: ParseContext, end: number): BlockMatch {
  if (listed.malformed.some((name) => ctx.resolveName(name) === null)) return NONE;
  const match = callsFromShapes(listed.shapes, ctx, end, end);
  return match.kind === 'calls' && listed.malformed.length > 0 ? { ...match, malformed: listed.malformed.length } : match;
}

/** The closing token after the calls belongs to the block; a missing one is tolerated. */
function closerEnd(text: string, callsEnd: number, closer: string, env: ScanEnv): number | 'incomplete' {
  const at = skipWhitespace(text, callsEnd);
  if (at >= text.length) return env.final ? callsEnd : 'incomplete';
  const found = literalAt(text, at, closer);
  if (found === 'yes') return at + closer.length;
  if (found === 'partial' && !env.final) return 'incomplete';
  return callsEnd;
}

export const olmo3Format = defineFormat({
  name: 'olmo3',
  triggers: '<',
  detect: (text) => text.includes(OLMO_OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    const open = literalAt(text, start, OLMO_OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    let at = skipWhitespace(text, start + OLMO_OPEN.length);
    if (at >= text.length) return outOfText(env);
    if (text[at] === '[' || text[at] === '{') {
      const listed = readListAt(text, at, env, indexFrom(text, OLMO_OPEN, at), ctx.repairBudget);
      if (listed.kind !== 'calls') return listed.kind === 'incomplete' ? INCOMPLETE : NONE;
      const end = closerEnd(text, listed.end, OLMO_CLOSE, env);
      if (end === 'incomplete') return INCOMPLETE;
      return listedCalls(listed, ctx, end);
    }

    // One call per line, up to the closing tag (or the end of the answer).
    const shapes: CallShape[] = [];
    let end = at;
    for (;;) {
      at = skipWhitespace(text, at);
      if (at >= text.length) {
        if (!env.final) return INCOMPLETE;
        break;
      }
      const close = literalAt(text, at, OLMO_CLOSE);
      if (close === 'yes') {
        end = at + OLMO_CLOSE.length;
        break;
      }
      if (close === 'partial' && !env.final) return INCOMPLETE;
      const line = lineAt(text, at, env);
      if (line === 'incomplete') return INCOMPLETE;
      const parsed = readPythonCallList(`[${text.slice(at, line)}]`, 0);
      // A line that is not a call leaves the block as content up to that line's end; it is not
      // read again from a later opener on the same line (a repeated opener stays linear).
      if (parsed.kind !== 'calls' || parsed.end !== line - at + 2) return { kind: 'none', skipTo: line };
      shapes.push(...parsed.calls);
      at = end = line;
    }
    return shapes.length > 0 ? callsFromShapes(shapes, ctx, end, end) : NONE;
  },
});

/** Where the call line starting at `at` ends: its newline, or the closing tag on the same line. */
function lineAt(text: string, at: number, env: ScanEnv): number | 'incomplete' {
  const newline = indexFrom(text, '\n', at);
  const close = indexFrom(text, OLMO_CLOSE, at);
  if (close >= 0 && (newline < 0 || close < newline)) return close;
  if (newline >= 0) return newline;
  return env.final ? text.length : 'incomplete';
}
