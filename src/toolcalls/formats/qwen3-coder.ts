import { findJsonEnd, isPlainObject, parseJsonLenient, parseJsonStrict, skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import type { ParseContext, ParsedCall } from '../types.js';
import { defineFormat } from './define.js';
import { ForwardSearchMemo, INCOMPLETE, NONE, indexFrom, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Qwen3-Coder XML: <tool_call><function=name><parameter=k>v</parameter>…</function></tool_call>.
// Values are text; they are typed from the tool's JSON schema (as vLLM's qwen3coder parser does).
// Also reads Seed-OSS (the same markup inside <seed:tool_call>…</seed:tool_call>, possibly several
// functions in one wrapper), Llama 3.1's <function=name>{json}</function>, and a <function=…>
// block without a wrapper (a dangling closing wrapper tag after it belongs to the block). A missing
// </function> is tolerated before the wrapper's closing tag and at the end of the answer, after a
// closed value (vLLM's qwen3coder parser reads `<function=…` to the end of its block).
// A value ends at a </parameter> followed by the next <parameter=, </function>, the wrapper's
// closing tag or the end of the answer, so those tags may appear inside values; a <parameter=, </function> or <function= that starts a line before
// any such </parameter> ends the value too (models drop </parameter>; the next tag is not a value).

const WRAPPERS = [
  { open: '<tool_call>', close: '</tool_call>' },
  { open: '<seed:tool_call>', close: '</seed:tool_call>' },
] as const;
type Wrapper = (typeof WRAPPERS)[number];
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
    let wrapper: Wrapper | undefined;
    for (const candidate of WRAPPERS) {
      const open = literalAt(text, at, candidate.open);
      if (open === 'partial') return outOfText(env);
      if (open === 'yes') wrapper = candidate;
    }
    if (wrapper) {
      at = skipWhitespace(text, at + wrapper.open.length);
      if (at >= text.length) return outOfText(env);
    }
    const functions: FunctionBlock[] = [];
    for (;;) {
      const block = readFunction(text, at, env, ctx.repairBudget);
      if (block.kind !== 'function') {
        if (block.kind === 'incomplete') return INCOMPLETE;
        // A malformed function stays content up to where it broke; its text is not searched again.
        if (functions.length === 0) return block.stop !== undefined ? { kind: 'none', skipTo: block.stop } : NONE;
        break; // what follows the functions is not another one
      }
      functions.push(block);
      at = block.end;
      if (!wrapper) break;
      const next = skipWhitespace(text, at);
      const fn = literalAt(text, next, FUNCTION_OPEN);
      if (fn === 'no') break;
      if (fn === 'partial' || next >= text.length) {
        if (!env.final) return INCOMPLETE;
        break;
      }
      at = next;
    }
    const end = closingTagEnd(text, at, wrapper, env);
    if (end === 'incomplete') return INCOMPLETE;
    return callsOf(functions, ctx, end);
  },
});

interface FunctionBlock {
  kind: 'function';
  writtenName: string;
  body: Body & { kind: 'body' };
  end: number;
}

/** One <function=name>…</function> at `at`. */
function readFunction(text: string, at: number, env: ScanEnv, budget: RepairBudget): FunctionBlock | { kind: 'incomplete' } | { kind: 'none'; stop?: number } {
  const fn = literalAt(text, at, FUNCTION_OPEN);
  if (fn === 'partial') return env.final ? { kind: 'none' } : { kind: 'incomplete' };
  if (fn === 'no') return { kind: 'none' };
  const nameEnd = indexFrom(text, '>', at + FUNCTION_OPEN.length);
  if (nameEnd < 0) return env.final ? { kind: 'none' } : { kind: 'incomplete' };
  const writtenName = text.slice(at + FUNCTION_OPEN.length, nameEnd).trim();
  if (writtenName === '' || /[<\n]/.test(writtenName)) return { kind: 'none' };
  const body = readFunctionBody(text, nameEnd + 1, env, budget);
  if (body.kind !== 'body') return body;
  return { kind: 'function', writtenName, body, end: body.end };
}

/**
 * After the functions: the wrapper's closing tag belongs to the block; without a wrapper, a
 * dangling closing tag of either wrapper does too (models open with <function= and still close).
 */
function closingTagEnd(text: string, from: number, wrapper: Wrapper | undefined, env: ScanEnv): number | 'incomplete' {
  const at = skipWhitespace(text, from);
  const closers = wrapper ? [wrapper.close] : WRAPPERS.map((candidate) => candidate.close);
  let partial = false;
  for (const closer of closers) {
    const found = literalAt(text, at, closer);
    if (found === 'yes') return at + closer.length;
    if (found === 'partial') partial = true;
  }
  if (!env.final && (partial || at >= text.length)) return 'incomplete';
  // A wrapped block whose closing tag never came: the rest of the text was the block.
  return wrapper && (partial || at >= text.length) ? text.length : from;
}

function callsOf(functions: FunctionBlock[], ctx: ParseContext, end: number): BlockMatch {
  const calls: ParsedCall[] = [];
  let rejected = 0;
  for (const { writtenName, body } of functions) {
    const name = ctx.resolveName(writtenName);
    const call = name === null ? undefined : makeCall(writtenName, body.json ?? typeParameters(body.params, name, ctx), ctx);
    if (call) calls.push(call);
    else rejected++;
  }
  if (rejected > 0) return { kind: 'none', skipTo: end, rejectedNames: rejected };
  return { kind: 'calls', end, calls };
}

/** `stop`: where a function body met something that is not a parameter (the block ends there as content). */
type Body = { kind: 'body'; end: number; params: Map<string, string>; json?: unknown } | { kind: 'incomplete' } | { kind: 'none'; stop?: number };

function readFunctionBody(text: string, from: number, env: ScanEnv, budget: RepairBudget): Body {
  const params = new Map<string, string>();
  let at = skipWhitespace(text, from);
  if (text[at] === '{') {
    const jsonEnd = findJsonEnd(text, at);
    if (jsonEnd === 'incomplete') return env.final ? { kind: 'none' } : { kind: 'incomplete' };
    if (jsonEnd === 'invalid') return { kind: 'none' };
    const json = parseJsonLenient(text.slice(at, jsonEnd), budget);
    if (!isPlainObject(json)) return { kind: 'none' };
    const closeAt = skipWhitespace(text, jsonEnd);
    const close = literalAt(text, closeAt, FUNCTION_CLOSE);
    if (close === 'yes') return { kind: 'body', end: closeAt + FUNCTION_CLOSE.length, params, json };
    if (!env.final && (close === 'partial' || closeAt >= text.length)) return { kind: 'incomplete' };
    return { kind: 'body', end: close === 'no' ? jsonEnd : text.length, params, json };
  }
  const visited: number[] = [];
  const failed = (body: Body): Body => {
    for (const position of visited) failedParams.set(position, body);
    return body;
  };
  const failedParams = failedParamsOf(text, env);
  let lastClosed = false;
  for (;;) {
    at = skipWhitespace(text, at);
    const known = failedParams.get(at);
    if (known) return failed(known);
    visited.push(at);
    // The answer ends after a closed value: </function> (and </tool_call>) were left out, as vLLM reads it.
    if (at >= text.length) return env.final && lastClosed ? { kind: 'body', end: at, params } : failed(outOfBody(env));
    if (literalAt(text, at, FUNCTION_CLOSE) === 'yes') return { kind: 'body', end: at + FUNCTION_CLOSE.length, params };
    // A wrapper's closing tag where </function> belongs: the function ends there (the tag is the wrapper's).
    const wrapperClose = WRAPPERS.map((wrapper) => literalAt(text, at, wrapper.close));
    if (wrapperClose.includes('yes') && (lastClosed || params.size === 0)) return { kind: 'body', end: at, params };
    const param = literalAt(text, at, PARAM_OPEN);
    if (param === 'no') return literalAt(text, at, FUNCTION_CLOSE) === 'partial' || wrapperClose.includes('partial') ? failed(outOfBody(env)) : failed({ kind: 'none', stop: at });
    if (param === 'partial') return failed(outOfBody(env));
    const nameEnd = indexFrom(text, '>', at + PARAM_OPEN.length);
    if (nameEnd < 0) return failed(outOfBody(env));
    const paramName = text.slice(at + PARAM_OPEN.length, nameEnd).trim();
    if (paramName === '' || /[<\n]/.test(paramName)) return failed({ kind: 'none' });
    const value = findValueEnd(text, nameEnd + 1, env);
    if (value === 'incomplete') return failed({ kind: 'incomplete' });
    if (value === 'none') return failed({ kind: 'none' });
    params.set(paramName, trimOneNewline(text.slice(nameEnd + 1, value.end)));
    lastClosed = value.next > value.end;
    at = value.next;
  }
}

/**
 * Reading parameters is a chain decided by each parameter's position alone, so a chain that failed
 * fails again from any position it passed: one opener after another inside a long broken block
 * (a model repeating <function=… without closing it) reads each parameter once, not once per opener.
 */
function failedParamsOf(text: string, env: ScanEnv): Map<number, Body> {
  const known = failedChains.get(text, env.final, 0);
  if (known) return known.answer;
  return failedChains.remember(text, env.final, 0, text.length, new Map<number, Body>());
}

const failedChains = new ForwardSearchMemo<Map<number, Body>>();

/** A truncated function block is content once the text is final. */
function outOfBody(env: ScanEnv): Body {
  return env.final ? { kind: 'none' } : { kind: 'incomplete' };
}

/** Where a value ends and where the next tag starts (past its </parameter> when there is one). */
function findValueEnd(text: string, from: number, env: ScanEnv): { end: number; next: number } | 'incomplete' | 'none' {
  const closed = findClosedValueEnd(text, from, env);
  // Before that </parameter> (or, without one, anywhere), a tag that starts a line ends the value.
  const limit = typeof closed === 'number' ? closed : text.length;
  const unclosed = findLineStartTag(text, from, limit, env);
  if (unclosed === 'incomplete') return 'incomplete';
  if (unclosed >= 0) return { end: unclosed, next: unclosed };
  if (typeof closed === 'number') return { end: closed, next: closed + PARAM_CLOSE.length };
  return closed;
}

/** The </parameter> that is followed by the next parameter or the end of the function. */
function findClosedValueEnd(text: string, from: number, env: ScanEnv): number | 'incomplete' | 'none' {
  const known = closedValueEnds.get(text, env.final, from);
  if (known) return known.answer;
  const remember = (stop: number, answer: number | 'incomplete' | 'none'): number | 'incomplete' | 'none' =>
    closedValueEnds.remember(text, env.final, from, stop, answer);
  let search = from;
  for (;;) {
    const close = indexFrom(text, PARAM_CLOSE, search);
    if (close < 0) return remember(text.length, env.final ? 'none' : 'incomplete');
    const next = skipWhitespace(text, close + PARAM_CLOSE.length);
    // At the end of the answer a </parameter> closes the value (the closing tags after it were left out).
    if (next >= text.length) return remember(close, env.final ? close : 'incomplete');
    const followers = [PARAM_OPEN, FUNCTION_CLOSE, ...WRAPPERS.map((wrapper) => wrapper.close)].map((tag) => literalAt(text, next, tag));
    if (followers.includes('yes')) return remember(close, close);
    if (followers.includes('partial')) return remember(close, env.final ? 'none' : 'incomplete');
    search = close + 1;
  }
}

/**
 * The first `<parameter=…>`, `</function>` or `<function=` in [from, limit) that starts a line
 * (the newline before it); -1 when none. Only a `limit` at a `</parameter>` (or the text's end)
 * is passed, and no answer other than -1 can come from a line starting at or past it.
 */
function findLineStartTag(text: string, from: number, limit: number, env: ScanEnv): number | 'incomplete' {
  const found = nextLineStartTag(text, from, env);
  if (found === 'incomplete') return limit >= text.length ? found : -1;
  return found >= 0 && found < limit ? found : -1;
}

/** The newline before the first line-start tag at or after `from`, over the rest of the text (memoized: see ForwardSearchMemo). */
function nextLineStartTag(text: string, from: number, env: ScanEnv): number | 'incomplete' {
  const known = lineStartTags.get(text, env.final, from);
  if (known) return known.answer;
  const remember = (stop: number, answer: number | 'incomplete'): number | 'incomplete' => lineStartTags.remember(text, env.final, from, stop, answer);
  let search = from;
  for (;;) {
    const newline = indexFrom(text, '\n', search);
    if (newline < 0) return remember(text.length, -1);
    const at = skipInlineSpace(text, newline + 1);
    search = newline + 1;
    if (at >= text.length) return remember(newline, env.final ? -1 : 'incomplete');
    const fnClose = literalAt(text, at, FUNCTION_CLOSE);
    const fnOpen = literalAt(text, at, FUNCTION_OPEN);
    const param = literalAt(text, at, PARAM_OPEN);
    if (fnClose === 'yes' || fnOpen === 'yes') return remember(newline, newline);
    if (param === 'yes') {
      const nameEnd = indexFrom(text, '>', at + PARAM_OPEN.length);
      const newlineAfter = indexFrom(text, '\n', at);
      if (nameEnd >= 0 && (newlineAfter < 0 || nameEnd < newlineAfter)) return remember(newline, newline);
      if (nameEnd < 0 && newlineAfter < 0 && !env.final) return remember(newline, 'incomplete');
    } else if ((fnClose === 'partial' || fnOpen === 'partial' || param === 'partial') && !env.final) return remember(newline, 'incomplete');
  }
}

const closedValueEnds = new ForwardSearchMemo<number | 'incomplete' | 'none'>();
const lineStartTags = new ForwardSearchMemo<number | 'incomplete'>();

function skipInlineSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
  return at;
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
  for (const [key, raw] of params) args[key] = typeValue(raw, properties[key], ctx.repairBudget);
  return args;
}

export function typeValue(raw: string, propertySchema: unknown, budget: RepairBudget): unknown {
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
      const parsed = parseJsonStrict(text) ?? parseEscapedJson(text) ?? parseJsonLenient(text, budget);
      if (type === 'object' ? isPlainObject(parsed) : Array.isArray(parsed)) return parsed;
    }
    if (type === 'null' && (lowered === 'null' || lowered === 'none')) return null;
  }
  return raw;
}

/**
 * JSON written with escaped quotes (`[{\"id\": \"1\"}]`, encoded once more than it should be, as
 * GLM-4.6 writes it): read as the body of a JSON string, then as JSON, as SGLang's glm4_moe reads it.
 */
function parseEscapedJson(text: string): unknown {
  if (!text.includes('\\"')) return undefined;
  const unescaped = parseJsonStrict(`"${text}"`);
  return typeof unescaped === 'string' ? parseJsonStrict(unescaped) : undefined;
}

/** Type names tools declare outside JSON Schema (`"type": "float"`), read as vLLM's qwen3coder parser reads them. */
const TYPE_ALIASES: Record<string, string> = { float: 'number', double: 'number', int: 'integer', long: 'integer', short: 'integer', uint: 'integer', bool: 'boolean', dict: 'object', list: 'array' };

function declaredTypes(schema: unknown): { types: string[]; nullable: boolean } {
  if (!isPlainObject(schema)) return { types: [], nullable: false };
  const collected: string[] = [];
  const add = (type: unknown): void => {
    if (typeof type === 'string') collected.push(TYPE_ALIASES[type.toLowerCase()] ?? type);
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
