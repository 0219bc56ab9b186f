import { readCallSequence } from './formats/json-calls.js';
import { callsFromShapes } from './formats/shared.js';
import { skipWhitespace } from './text/json-scan.js';
import type { ParseContext, ParsedCall } from './types.js';

// Markdown code fences for the scanner: where a fence's closing line is, and whether a fence holds
// JSON tool calls (```json {"name": …, "arguments": …} ```, a real call style).

const JSON_FENCE_LANGS = new Set(['', 'json', 'json5', 'jsonc', 'tool_call', 'tool_calls', 'tool_code', 'function_call']);

const FENCE_CLOSER = /^[ \t]{0,3}(`{3,})[ \t]*$/;
const FENCE_CLOSER_PREFIX = /^[ \t]{0,3}`*[ \t]*$/;

/** The closing fence line at or after `from` (a line start), 'incomplete' while it may still come. */
export function findFenceCloser(text: string, from: number, ticks: number, final: boolean): { start: number; end: number } | 'incomplete' | null {
  let lineStart = from;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    // A closing line is short: longer lines are not read by the regexes at all.
    const line = lineEnd - lineStart <= 64 ? text.slice(lineStart, lineEnd) : '';
    const closer = FENCE_CLOSER.exec(line);
    if (newline < 0) {
      if (!final && lineEnd - lineStart <= 64 && FENCE_CLOSER_PREFIX.test(line)) return 'incomplete';
      if (closer && closer[1].length >= ticks) return { start: lineStart, end: lineEnd };
      return final ? null : 'incomplete';
    }
    if (closer && closer[1].length >= ticks) return { start: lineStart, end: lineEnd };
    lineStart = newline + 1;
  }
  return final ? null : 'incomplete';
}

/**
 * A fence whose info string (`infoStart`..`bodyStart`) names JSON (or nothing) and whose body starts
 * with `{` or `[` (or has not started yet) may hold calls; any other fence is code.
 */
export function mayHoldJsonCalls(text: string, infoStart: number, bodyStart: number): boolean {
  const lang = text.slice(infoStart, bodyStart).trim().split(/\s/)[0].toLowerCase();
  const first = text[skipWhitespace(text, bodyStart)];
  return JSON_FENCE_LANGS.has(lang) && (first === undefined || first === '{' || first === '[');
}

/**
 * Reads a JSON fence's body as tool calls: `calls` when the whole body is a call sequence of
 * declared tools; otherwise none (the fence is prose up to `end`), with how many names were rejected.
 */
export function readFencedCalls(
  text: string,
  bodyStart: number,
  ticks: number,
  final: boolean,
  ctx: ParseContext,
): 'incomplete' | { end: number; calls?: ParsedCall[]; rejectedNames: number } {
  const first = skipWhitespace(text, bodyStart);
  if (first >= text.length && !final) return 'incomplete';
  const closer = findFenceCloser(text, bodyStart, ticks, final);
  if (closer === 'incomplete') return 'incomplete';
  const bodyEnd = closer?.start ?? text.length;
  const end = closer?.end ?? text.length;
  const sequence = first < bodyEnd ? readCallSequence(text.slice(0, bodyEnd), first, true, true) : undefined;
  if (sequence?.kind !== 'shapes' || skipWhitespace(text, sequence.end) < bodyEnd) return { end, rejectedNames: 0 };
  const match = callsFromShapes(sequence.shapes, ctx, end);
  if (match.kind === 'calls') return { end, calls: match.calls, rejectedNames: 0 };
  return { end, rejectedNames: match.kind === 'none' ? (match.rejectedNames ?? 0) : 0 };
}
