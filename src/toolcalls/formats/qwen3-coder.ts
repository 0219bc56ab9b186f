import { findJsonEnd, isPlainObject, parseJsonLenient, parseJsonStrict, skipWhitespace } from '../text/json-scan.js';
import type { ParseContext } from '../types.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Qwen3-Coder XML: <tool_call><function=name><parameter=k>v</parameter>…</function></tool_call>.
// Values are text; they are typed from the tool's JSON schema (as vLLM's qwen3coder parser does).
// Also reads Llama 3.1's <function=name>{json}</function> and a <function=…> block without the
// <tool_call> wrapper. A value ends at a </parameter> followed by the next <parameter= or
// </function>, so those tags may appear inside values.

const WRAP_OPEN = '<tool_call>';
const WRAP_CLOSE = '</tool_call>';
const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';

export const qwen3CoderFormat = defineFormat({
  name: 'qwen3-coder',
  triggers: '<',
  detect: (text) => text.includes(FUNCTION_OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    let at = start;
    const wrap = literalAt(text, at, WRAP_OPEN);
    if (wrap === 'partial') return outOfText(env);
    if (wrap === 'yes') {
      at = skipWhitespace(text, at + WRAP_OPEN.length);
      if (at >= text.length) return outOfText(env);
    }
    const fn = literalAt(text, at, FUNCTION_OPEN);
    if (fn === 'partial') return outOfText(env);
    if (fn === 'no') return NONE;
    const nameEnd = text.indexOf('>', at + FUNCTION_OPEN.length);
    if (nameEnd < 0) return outOfText(env);
    const writtenName = text.slice(at + FUNCTION_OPEN.length, nameEnd).trim();
    if (writtenName === '' || /[<\n]/.test(writtenName)) return NONE;

    const body = readFunctionBody(text, nameEnd + 1, env);
    if (body.kind !== 'body') return body.kind === 'incomplete' ? INCOMPLETE : NONE;
    let end = body.end;
    if (wrap === 'yes') {
      const afterBody = skipWhitespace(text, end);
      const close = literalAt(text, afterBody, WRAP_CLOSE);
      if (close === 'yes') end = afterBody + WRAP_CLOSE.length;
      else if (close === 'partial' || afterBody >= text.length) {
        if (!env.final) return INCOMPLETE;
        end = text.length;
      }
    }
    const name = ctx.resolveName(writtenName);
    if (name === null) return { kind: 'none', skipTo: end, rejectedNames: 1 };
    const args = body.json ?? typeParameters(body.params, name, ctx);
    const call = makeCall(writtenName, args, ctx);
    return call ? { kind: 'calls', end, calls: [call] } : { kind: 'none', skipTo: end };
  },
});

type Body = { kind: 'body'; end: number; params: Map<string, string>; json?: unknown } | { kind: 'incomplete' } | { kind: 'none' };

function readFunctionBody(text: string, from: number, env: ScanEnv): Body {
  const params = new Map<string, string>();
  let at = skipWhitespace(text, from);
  if (text[at] === '{') {
    const jsonEnd = findJsonEnd(text, at);
    if (jsonEnd === 'incomplete') return env.final ? { kind: 'none' } : { kind: 'incomplete' };
    if (jsonEnd === 'invalid') return { kind: 'none' };
    const json = parseJsonLenient(text.slice(at, jsonEnd));
    if (!isPlainObject(json)) return { kind: 'none' };
    const closeAt = skipWhitespace(text, jsonEnd);
    const close = literalAt(text, closeAt, FUNCTION_CLOSE);
    if (close === 'yes') return { kind: 'body', end: closeAt + FUNCTION_CLOSE.length, params, json };
    if (!env.final && (close === 'partial' || closeAt >= text.length)) return { kind: 'incomplete' };
    return { kind: 'body', end: close === 'no' ? jsonEnd : text.length, params, json };
  }
  for (;;) {
    at = skipWhitespace(text, at);
    if (at >= text.length) return outOfBody(env);
    if (literalAt(text, at, FUNCTION_CLOSE) === 'yes') return { kind: 'body', end: at + FUNCTION_CLOSE.length, params };
    const param = literalAt(text, at, PARAM_OPEN);
    if (param === 'no') return literalAt(text, at, FUNCTION_CLOSE) === 'partial' ? outOfBody(env) : { kind: 'none' };
    if (param === 'partial') return outOfBody(env);
    const nameEnd = text.indexOf('>', at + PARAM_OPEN.length);
    if (nameEnd < 0) return outOfBody(env);
    const paramName = text.slice(at + PARAM_OPEN.length, nameEnd).trim();
    const valueEnd = findValueEnd(text, nameEnd + 1, env);
    if (valueEnd === 'incomplete') return { kind: 'incomplete' };
    if (valueEnd === 'none') return { kind: 'none' };
    params.set(paramName, trimOneNewline(text.slice(nameEnd + 1, valueEnd)));
    at = valueEnd + PARAM_CLOSE.length;
  }
}

/** A truncated function block is content once the text is final. */
function outOfBody(env: ScanEnv): Body {
  return env.final ? { kind: 'none' } : { kind: 'incomplete' };
}

/** The </parameter> that is followed by the next parameter or the end of the function. */
function findValueEnd(text: string, from: number, env: ScanEnv): number | 'incomplete' | 'none' {
  let search = from;
  for (;;) {
    const close = text.indexOf(PARAM_CLOSE, search);
    if (close < 0) return env.final ? 'none' : 'incomplete';
    const next = skipWhitespace(text, close + PARAM_CLOSE.length);
    if (next >= text.length) return env.final ? 'none' : 'incomplete';
    const param = literalAt(text, next, PARAM_OPEN);
    const fnClose = literalAt(text, next, FUNCTION_CLOSE);
    if (param === 'yes' || fnClose === 'yes') return close;
    if (param === 'partial' || fnClose === 'partial') return env.final ? 'none' : 'incomplete';
    search = close + 1;
  }
}

function trimOneNewline(value: string): string {
  let v = value.startsWith('\r\n') ? value.slice(2) : value.startsWith('\n') ? value.slice(1) : value;
  v = v.endsWith('\r\n') ? v.slice(0, -2) : v.endsWith('\n') ? v.slice(0, -1) : v;
  return v;
}

/** Converts each text value to the type its parameter declares; unknown parameters stay text. */
function typeParameters(params: Map<string, string>, toolName: string, ctx: ParseContext): Record<string, unknown> {
  const schema = ctx.tools.get(toolName)?.function.parameters;
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  const args: Record<string, unknown> = {};
  for (const [key, raw] of params) args[key] = typeValue(raw, properties[key]);
  return args;
}

export function typeValue(raw: string, propertySchema: unknown): unknown {
  const { types, nullable } = declaredTypes(propertySchema);
  const lowered = raw.trim().toLowerCase();
  if (nullable && (lowered === 'null' || lowered === 'none')) return null;
  if (types.length === 0 || types.includes('string')) return raw;
  const text = raw.trim();
  for (const type of types) {
    if (type === 'integer' && /^-?\d+$/.test(text)) return Number(text);
    if (type === 'number' && text !== '' && Number.isFinite(Number(text))) return Number(text);
    if (type === 'boolean' && (lowered === 'true' || lowered === 'false')) return lowered === 'true';
    if (type === 'object' || type === 'array') {
      const parsed = parseJsonStrict(text) ?? parseJsonLenient(text);
      if (type === 'object' ? isPlainObject(parsed) : Array.isArray(parsed)) return parsed;
    }
    if (type === 'null' && (lowered === 'null' || lowered === 'none')) return null;
  }
  return raw;
}

function declaredTypes(schema: unknown): { types: string[]; nullable: boolean } {
  if (!isPlainObject(schema)) return { types: [], nullable: false };
  const collected: string[] = [];
  const add = (type: unknown): void => {
    if (typeof type === 'string') collected.push(type);
    else if (Array.isArray(type)) type.forEach(add);
  };
  add(schema.type);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) for (const option of options) if (isPlainObject(option)) add(option.type);
  }
  if (collected.length === 0 && Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) collected.push('string');
  const nullable = collected.includes('null');
  return { types: collected.filter((type) => type !== 'null'), nullable };
}
