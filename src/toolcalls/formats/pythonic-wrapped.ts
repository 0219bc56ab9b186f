import { skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import { MAX_SKIPPED_CALL, readPythonCallList } from '../text/python-literal.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, type CallShape, callsFromShapes, indexFrom, literalAt, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Pythonic calls inside a model's wrapper tokens:
//   LFM2:   <|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|>
//           (LFM2 also writes the JSON form [{"name": …, "arguments": …}] between the same tokens,
//           calls without the list's brackets, and an echo of the calls after the closing token;
//           read leniently once closed: raw newlines and unescaped inner quotes in strings, as
//           vLLM's lfm2 parser recovers them)
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
    // Read once the closing token (or the next opener, or the end of the answer) is there: a
    // string's closing quote is only known then (see PythonReadOptions.lenient).
    const close = indexFrom(text, LFM2_CLOSE, at);
    const next = indexFrom(text, LFM2_OPEN, at);
    const bounds = [close, next].filter((index) => index >= 0);
    if (bounds.length === 0 && !env.final) return INCOMPLETE;
    const regionEnd = bounds.length > 0 ? Math.min(...bounds) : text.length;
    const listed = IDENT_START.test(text[at]) ? readUnbracketed(text, at, env) : readListAt(text, at, env, regionEnd, ctx.repairBudget, true);
    if (listed.kind !== 'calls') return listed.kind === 'incomplete' ? INCOMPLETE : NONE;
    const closed = closerEnd(text, listed.end, LFM2_CLOSE, env);
    if (closed === 'incomplete') return INCOMPLETE;
    const end = closed === listed.end ? closed : echoEnd(text, closed, text.slice(at, listed.end), env);
    if (end === 'incomplete') return INCOMPLETE;
    return listedCalls(listed, ctx, end);
  },
});

const IDENT_START = /[A-Za-z_]/;

/** LFM2 calls written without the list's brackets, `f(…), g(…)`, up to the closing token. */
function readUnbracketed(text: string, at: number, env: ScanEnv): Listed {
  const close = indexFrom(text, LFM2_CLOSE, at);
  const next = indexFrom(text, LFM2_OPEN, at);
  if (close < 0 || (next >= 0 && next < close)) return env.final || next >= 0 ? { kind: 'none' } : { kind: 'incomplete' };
  const written = text.slice(at, close).trimEnd();
  const list = readPythonCallList(`[${written}]`, 0, undefined, { lenient: true });
  if (list.kind !== 'calls' || list.end !== written.length + 2) return { kind: 'none' };
  return { kind: 'calls', shapes: list.calls, end: at + written.length, malformed: list.malformed };
}

/**
 * LFM2 often repeats the calls it just made after the closing token, capped with a second closing
 * token (vLLM drops that echo too): the same text again and its closer belong to the block.
 */
function echoEnd(text: string, closed: number, calls: string, env: ScanEnv): number | 'incomplete' {
  const at = skipWhitespace(text, closed);
  if (at >= text.length) return env.final ? closed : 'incomplete';
  const echo = literalAt(text, at, calls);
  if (echo === 'partial') return env.final ? closed : 'incomplete';
  if (echo === 'no') return closed;
  const after = skipWhitespace(text, at + calls.length);
  if (after >= text.length) return env.final ? closed : 'incomplete';
  const closer = literalAt(text, after, LFM2_CLOSE);
  if (closer === 'partial') return env.final ? closed : 'incomplete';
  return closer === 'yes' ? after + LFM2_CLOSE.length : closed;
}

/** `malformed`: names of pythonic calls left out because their arguments could not be read. */
type Listed = { kind: 'calls'; shapes: CallShape[]; end: number; malformed: string[] } | { kind: 'incomplete' } | { kind: 'none' };

/**
 * `[call(…), …]` in Python or JSON syntax, or JSON objects, starting at `at`. A pythonic list must
 * end before `nextOpener` (the wrapper's next opener, -1: none): a repeated opener stays linear.
 */
function readListAt(text: string, at: number, env: ScanEnv, nextOpener: number, budget: RepairBudget, lenient = false): Listed {
  const first = text[at];
  const afterBracket = first === '[' ? skipWhitespace(text, at + 1) : at;
  if (afterBracket >= text.length) return env.final ? { kind: 'none' } : { kind: 'incomplete' };
  if (text[afterBracket] === '{') {
    const sequence = readCallSequence(text, at, env.final, false, budget);
    if (sequence.kind === 'shapes') return { kind: 'calls', shapes: sequence.shapes, end: sequence.end, malformed: [] };
    return sequence.kind === 'incomplete' ? { kind: 'incomplete' } : { kind: 'none' };
  }
  if (first !== '[') return { kind: 'none' };
  const list = readPythonCallList(text, at, nextOpener < 0 ? text.length : nextOpener, { lenient });
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
    const malformed: string[] = [];
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
      if (parsed.kind === 'calls' && parsed.end === line - at + 2) {
        shapes.push(...parsed.calls);
        malformed.push(...parsed.malformed);
      } else if (malformedCallLine(text.slice(at, line), ctx)) {
        // `declared_tool(…)` whose arguments cannot be read: left out and counted, the others stand.
        malformed.push(text.slice(at, line));
      } else {
        // A line that is not a call leaves the block as content up to that line's end; it is not
        // read again from a later opener on the same line (a repeated opener stays linear).
        return { kind: 'none', skipTo: line };
      }
      at = end = line;
    }
    if (shapes.length === 0) return malformed.length > 0 ? { kind: 'none', skipTo: end } : NONE;
    const match = callsFromShapes(shapes, ctx, end, end);
    return match.kind === 'calls' && malformed.length > 0 ? { ...match, malformed: malformed.length } : match;
  },
});

/** A line written as a call to a declared tool, `name(…)`, at most MAX_SKIPPED_CALL characters. */
function malformedCallLine(line: string, ctx: ParseContext): boolean {
  const trimmed = line.trim();
  if (trimmed.length > MAX_SKIPPED_CALL || !trimmed.endsWith(')')) return false;
  const name = /^([A-Za-z_][\w.]*)\s*\(/.exec(trimmed);
  return name !== null && ctx.resolveName(name[1]) !== null;
}

/** Where the call line starting at `at` ends: its newline, or the closing tag on the same line. */
function lineAt(text: string, at: number, env: ScanEnv): number | 'incomplete' {
  const newline = indexFrom(text, '\n', at);
  const close = indexFrom(text, OLMO_CLOSE, at);
  if (close >= 0 && (newline < 0 || close < newline)) return close;
  if (newline >= 0) return newline;
  return env.final ? text.length : 'incomplete';
}
