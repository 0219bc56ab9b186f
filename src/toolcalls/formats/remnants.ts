import { findJsonEnd, isPlainObject, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, type CallShape, callsFromShapes, indexFrom, literalAt, outOfText } from './shared.js';
import type { ParseContext } from '../types.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Kimi K2's calls (as its chat template writes them and vLLM's kimi_k2 parser reads them), and
// its call ids leaking into text without the markers:
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>
//   functions.get_weather:0 {"city": "SF"}
// Inside the markers the id may also be a bare `get_weather:0`, the section marker may be the
// singular <|tool_call_section_begin|>, and a call may end at the next call or the section's end
// instead of its own <|tool_call_end|>. A call in a section whose id or arguments cannot be read is
// left out and counted; the others stay calls. Without markers the id must start a word and be
// followed by a JSON object.

const SECTION_BEGINS = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'];
const SECTION_ENDS = ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'];
const CALL_BEGIN = '<|tool_call_begin|>';
const ARGS_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';
/** What ends a call's arguments, first found first. */
const ARGS_TERMINATORS = [CALL_END, CALL_BEGIN, ...SECTION_ENDS];
const PREFIX = 'functions.';
// `functions.get_weather:0` as the template writes it; also `get_weather:0`, and the forms Kimi
// copies from ids a client sanitized (`functions_get_weather_1`, `functionsexec5`).
const CALL_ID = /^(?:functions[._]?)?([A-Za-z_][\w.-]*?)(?:[:_]?\d+)?$/;
// A bare counter (`0`) or a prefixed one (`call00003`): the tool is known only from its arguments.
const COUNTER_ID = /^(?:call_?)?\d+$/;
const BARE_ID = /^functions\.([A-Za-z_][\w.-]*):\d+/;
const MAX_ID = 300;

export const remnantsFormat = defineFormat({
  name: 'functions-remnant',
  triggers: '<f',
  detect: (text) => text.includes(PREFIX) || text.includes(CALL_BEGIN),
  matchAt(text, start, ctx, env): BlockMatch {
    if (text[start] === 'f') return bareRemnant(text, start, env, ctx);
    let at = start;
    const section = firstLiteralAt(text, at, SECTION_BEGINS);
    const single = literalAt(text, at, CALL_BEGIN);
    if (section === 'partial' || single === 'partial') return outOfText(env);
    if (typeof section === 'number') at = section;
    else if (single === 'no') return NONE;

    const shapes: CallShape[] = [];
    let malformed = 0;
    let end = at;
    for (;;) {
      at = skipWhitespace(text, at);
      const sectionEnd = firstLiteralAt(text, at, SECTION_ENDS);
      const callBegin = literalAt(text, at, CALL_BEGIN);
      if (typeof sectionEnd === 'number') {
        end = sectionEnd;
        break;
      }
      if (at >= text.length || callBegin === 'partial' || sectionEnd === 'partial') {
        if (!env.final) return INCOMPLETE;
        break;
      }
      if (callBegin === 'no') break;
      const call = markedCall(text, at + CALL_BEGIN.length, env, ctx);
      if (call === 'incomplete') return INCOMPLETE;
      if (call === undefined) break; // truncated or malformed: the calls before it stand
      // Cut off by the next marker: the section ends before it (the calls before it stand).
      if (call.cut) {
        if (shapes.length === 0) return { kind: 'none', skipTo: call.end };
        break;
      }
      // A call whose id or arguments cannot be read is left out (and counted); its siblings stand.
      if (call.shape === undefined) malformed++;
      else shapes.push(call.shape);
      at = end = call.end;
    }
    if (shapes.length === 0) return malformed > 0 ? { kind: 'none', skipTo: end } : NONE;
    const match = callsFromShapes(shapes, ctx, end, end);
    return match.kind === 'calls' && malformed > 0 ? { ...match, malformed } : match;
  },
});

/** Which of `literals` is at `at`: the position after it, 'partial', or 'no'. */
function firstLiteralAt(text: string, at: number, literals: readonly string[]): number | 'partial' | 'no' {
  let partial = false;
  for (const literal of literals) {
    const found = literalAt(text, at, literal);
    if (found === 'yes') return at + literal.length;
    partial ||= found === 'partial';
  }
  return partial ? 'partial' : 'no';
}

/** `id<|tool_call_argument_begin|>{json}[<|tool_call_end|>]`, from just after <|tool_call_begin|>. */
function markedCall(text: string, from: number, env: ScanEnv, ctx: ParseContext): { shape?: CallShape; end: number; cut?: true } | 'incomplete' | undefined {
  const window = text.slice(from, from + MAX_ID + ARGS_BEGIN.length);
  const split = window.indexOf(ARGS_BEGIN);
  if (split < 0) return window.length < MAX_ID + ARGS_BEGIN.length && !env.final ? 'incomplete' : undefined;
  const argsStart = from + split + ARGS_BEGIN.length;
  let argsEnd = -1;
  let terminator = '';
  for (const literal of ARGS_TERMINATORS) {
    const found = indexFrom(text, literal, argsStart);
    if (found >= 0 && (argsEnd < 0 || found < argsEnd)) [argsEnd, terminator] = [found, literal];
  }
  if (argsEnd < 0) {
    if (!env.final) return 'incomplete';
    argsEnd = text.length;
  }
  const end = terminator === CALL_END ? argsEnd + CALL_END.length : argsEnd;
  const body = text.slice(argsStart, argsEnd).trim();
  // Without its own end marker a call must hold whole JSON: one cut off by the next marker or the
  // end of the answer is not repaired into a call.
  if (terminator !== CALL_END && body !== '' && findJsonEnd(body, 0) !== body.length) return argsEnd === text.length ? undefined : { end, cut: true };
  const args = parseJsonLenient(body || '{}', ctx.repairBudget);
  if (!isPlainObject(args)) return { end };
  const name = nameOfId(window.slice(0, split).trim(), args, ctx);
  return { shape: name === undefined ? undefined : { name, args }, end };
}

/** The tool a call id names; for a counter id, the one declared tool its arguments fit. */
function nameOfId(id: string, args: Record<string, unknown>, ctx: ParseContext): string | undefined {
  if (COUNTER_ID.test(id)) return toolFittingArguments(args, ctx);
  const written = CALL_ID.exec(id);
  // `functions.invalid.0`: a counter after a dot is no id Kimi writes (vLLM's kimi_k2 skips it).
  if (!written || /[.-]$/.test(written[1])) return undefined;
  // `functionsexec5` may name a tool `exec5`: the whole rest when the counted name is not declared.
  const whole = id.replace(/^functions[._]?/, '');
  return ctx.resolveName(written[1]) === null && ctx.resolveName(whole) !== null ? whole : written[1];
}

/**
 * The single declared tool whose schema takes exactly these arguments (every key a property, every
 * required property present); undefined when none or several do, or there are no arguments to tell.
 */
function toolFittingArguments(args: Record<string, unknown>, ctx: ParseContext): string | undefined {
  const keys = Object.keys(args);
  if (keys.length === 0) return undefined;
  let found: string | undefined;
  for (const [name, tool] of ctx.tools) {
    const schema = tool.function.parameters;
    const properties = isPlainObject(schema?.properties) ? schema.properties : {};
    const required = Array.isArray(schema?.required) ? schema.required : [];
    if (!keys.every((key) => key in properties) || !required.every((key) => typeof key !== 'string' || key in args)) continue;
    if (found !== undefined) return undefined;
    found = name;
  }
  return found;
}

function bareRemnant(text: string, start: number, env: ScanEnv, ctx: ParseContext): BlockMatch {
  // A bare id is a guess, not the model's own marker: never inside reasoning.
  if (env.inReasoning === true || /[\w.]/.test(env.prevChar)) return NONE;
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
  const args = parseJsonLenient(text.slice(at, jsonEnd), ctx.repairBudget);
  if (!isPlainObject(args)) return NONE;
  let end = jsonEnd;
  const afterArgs = skipWhitespace(text, jsonEnd);
  const callEnd = literalAt(text, afterArgs, CALL_END);
  if (callEnd === 'yes') end = afterArgs + CALL_END.length;
  else if (callEnd === 'partial' && !env.final) return INCOMPLETE;
  return callsFromShapes([{ name: id[1], args }], ctx, end, end);
}
