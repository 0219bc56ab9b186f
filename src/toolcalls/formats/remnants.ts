import { findJsonEnd, isPlainObject, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, type CallShape, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Best effort for `functions.name:N {json}` — Kimi K2's call ids leaking into text — with or
// without its markers:
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>
//   functions.get_weather:0 {"city": "SF"}
// Without markers the id must start a word and be followed by a JSON object.

const SECTION_BEGIN = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const CALL_BEGIN = '<|tool_call_begin|>';
const ARGS_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';
const PREFIX = 'functions.';
const CALL_ID = /^(?:functions\.)?([A-Za-z_][\w.-]*?)(?::\d+)?$/;
const BARE_ID = /^functions\.([A-Za-z_][\w.-]*):\d+/;

export const remnantsFormat = defineFormat({
  name: 'functions-remnant',
  triggers: '<f',
  detect: (text) => text.includes(PREFIX) || text.includes(CALL_BEGIN),
  matchAt(text, start, ctx, env): BlockMatch {
    if (text[start] === 'f') return bareRemnant(text, start, env, ctx);
    let at = start;
    const section = literalAt(text, at, SECTION_BEGIN);
    const single = literalAt(text, at, CALL_BEGIN);
    if (section === 'partial' || single === 'partial') return outOfText(env);
    if (section === 'yes') at += SECTION_BEGIN.length;
    else if (single === 'no') return NONE;

    const shapes: CallShape[] = [];
    let end = at;
    for (;;) {
      at = skipWhitespace(text, at);
      const sectionEnd = literalAt(text, at, SECTION_END);
      const callBegin = literalAt(text, at, CALL_BEGIN);
      if (sectionEnd === 'yes') {
        end = at + SECTION_END.length;
        break;
      }
      if (at >= text.length || callBegin === 'partial' || sectionEnd === 'partial') {
        if (!env.final) return INCOMPLETE;
        break;
      }
      if (callBegin === 'no') break;
      const callEnd = text.indexOf(CALL_END, at);
      if (callEnd < 0) {
        if (!env.final) return INCOMPLETE;
        break;
      }
      const shape = markedShape(text.slice(at + CALL_BEGIN.length, callEnd));
      if (!shape) return { kind: 'none', skipTo: callEnd + CALL_END.length };
      shapes.push(shape);
      at = end = callEnd + CALL_END.length;
    }
    return shapes.length > 0 ? callsFromShapes(shapes, ctx, end, end) : NONE;
  },
});

function markedShape(inner: string): CallShape | undefined {
  const split = inner.indexOf(ARGS_BEGIN);
  if (split < 0) return undefined;
  const id = CALL_ID.exec(inner.slice(0, split).trim());
  const args = parseJsonLenient(inner.slice(split + ARGS_BEGIN.length).trim() || '{}');
  return id && isPlainObject(args) ? { name: id[1], args } : undefined;
}

function bareRemnant(text: string, start: number, env: ScanEnv, ctx: ParseContext): BlockMatch {
  if (/[\w.]/.test(env.prevChar)) return NONE;
  const prefix = literalAt(text, start, PREFIX);
  if (prefix === 'no') return NONE;
  if (prefix === 'partial') return outOfText(env);
  const id = BARE_ID.exec(text.slice(start, start + 300));
  if (!id) return /^functions\.[\w.-]*(?::\d*)?$/.test(text.slice(start)) ? outOfText(env) : NONE;
  let at = skipWhitespace(text, start + id[0].length);
  if (at >= text.length) return outOfText(env);
  const marker = literalAt(text, at, ARGS_BEGIN);
  if (marker === 'partial') return outOfText(env);
  if (marker === 'yes') at = skipWhitespace(text, at + ARGS_BEGIN.length);
  if (at >= text.length) return outOfText(env);
  if (text[at] !== '{') return NONE;
  const jsonEnd = findJsonEnd(text, at);
  if (jsonEnd === 'incomplete') return outOfText(env);
  if (jsonEnd === 'invalid') return NONE;
  const args = parseJsonLenient(text.slice(at, jsonEnd));
  if (!isPlainObject(args)) return NONE;
  let end = jsonEnd;
  const afterArgs = skipWhitespace(text, jsonEnd);
  const callEnd = literalAt(text, afterArgs, CALL_END);
  if (callEnd === 'yes') end = afterArgs + CALL_END.length;
  else if (callEnd === 'partial' && !env.final) return INCOMPLETE;
  return callsFromShapes([{ name: id[1], args }], ctx, end, end);
}
