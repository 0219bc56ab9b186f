import { findJsonEnd, isPlainObject, parseJsonLenient, parseJsonStrict, skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import type { ParseContext, ParsedCall } from '../types.js';
import { type Read, READ_INCOMPLETE, READ_NONE, ranOut, readQuotedAttribute, trimNewlines, typedArguments } from './markup.js';
import { INCOMPLETE, NONE, indexFrom, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// The <invoke name="f"><parameter name="k">v</parameter></invoke> markup that MiniMax M2,
// DeepSeek V3.2 (DSML, with a `｜DSML｜` tag prefix and a string="true|false" attribute) and
// Step-3 (`steptml:` prefix) write inside their own section markers. The body of an invoke may
// also be one JSON object. Values are text, typed from the tool's schema unless string="…" says.

export interface InvokeTags {
  /** Prefix inside the tag names: '', '｜DSML｜', 'steptml:'. */
  prefix: string;
  /** Also accept closing tags without the prefix (DeepSeek mixes them). */
  plainClosers?: boolean;
  /**
   * Values lose all surrounding whitespace (MiniMax's own parser strips them: a model that indents
   * its markup indents the values too); otherwise only the newline after the opening tag and the
   * one before the closing tag go.
   */
  stripValues?: boolean;
  /** Values are kept exactly as written (Step-3 writes them inline, so whitespace there is data). */
  verbatimValues?: boolean;
}

interface WrittenInvoke {
  name: string;
  params: Array<{ key: string; raw: string; isString?: boolean }>;
  json?: Record<string, unknown>;
}

/** Reads one `<P:invoke name="…">…</P:invoke>` at `start`. */
export function readInvoke(text: string, start: number, tags: InvokeTags, env: ScanEnv, budget: RepairBudget): Read<WrittenInvoke> {
  const open = `<${tags.prefix}invoke`;
  const head = literalAt(text, start, open);
  if (head !== 'yes') return head === 'partial' ? ranOut(env) : READ_NONE;
  const name = readTagAttributes(text, start + open.length, false, env);
  if (name.kind !== 'ok') return name;
  const written: WrittenInvoke = { name: name.value.name, params: [] };
  let at = name.end;
  for (;;) {
    at = skipWhitespace(text, at);
    if (at >= text.length) return ranOut(env);
    const close = closerAt(text, at, 'invoke', tags);
    if (close === 'partial') return ranOut(env);
    if (typeof close === 'number') return { kind: 'ok', value: written, end: close };
    if (text[at] === '{' && written.params.length === 0 && !written.json) {
      const jsonEnd = findJsonEnd(text, at);
      if (jsonEnd === 'incomplete') return ranOut(env);
      if (jsonEnd === 'invalid') return READ_NONE;
      const json = parseJsonLenient(text.slice(at, jsonEnd), budget);
      if (!isPlainObject(json)) return READ_NONE;
      written.json = json;
      at = jsonEnd;
      continue;
    }
    const paramOpen = `<${tags.prefix}parameter`;
    const param = literalAt(text, at, paramOpen);
    if (param === 'partial') return ranOut(env);
    if (param === 'no' || written.json) return READ_NONE;
    const attributes = readTagAttributes(text, at + paramOpen.length, true, env);
    if (attributes.kind !== 'ok') return attributes;
    const valueEnd = findParameterEnd(text, attributes.end, tags);
    if (valueEnd === undefined) return ranOut(env);
    const value = text.slice(attributes.end, valueEnd.start);
    const raw = tags.stripValues ? value.trim() : tags.verbatimValues ? value : trimNewlines(value);
    written.params.push({ key: attributes.value.name, raw, isString: attributes.value.isString });
    at = valueEnd.end;
  }
}

/** ` name="…"[ string="true|false"]>` after a tag name; `>` must follow. */
function readTagAttributes(text: string, from: number, allowString: boolean, env: ScanEnv): Read<{ name: string; isString?: boolean }> {
  const name = readQuotedAttribute(text, from, 'name', env);
  if (name.kind !== 'ok') return name;
  let at = name.end;
  let isString: boolean | undefined;
  if (allowString) {
    const kind = readQuotedAttribute(text, at, 'string', env);
    if (kind.kind === 'incomplete') return kind;
    if (kind.kind === 'ok') {
      isString = kind.value === 'true';
      at = kind.end;
    }
  }
  while (text[at] === ' ') at++;
  if (at >= text.length) return ranOut(env);
  if (text[at] !== '>' || name.value.trim() === '') return READ_NONE;
  return { kind: 'ok', value: { name: name.value.trim(), isString }, end: at + 1 };
}

function closerAt(text: string, at: number, tag: string, tags: InvokeTags): number | 'partial' | 'no' {
  let partial = false;
  for (const closer of closersOf(tag, tags)) {
    const found = literalAt(text, at, closer);
    if (found === 'yes') return at + closer.length;
    partial ||= found === 'partial';
  }
  return partial ? 'partial' : 'no';
}

function closersOf(tag: string, tags: InvokeTags): string[] {
  const own = `</${tags.prefix}${tag}>`;
  return tags.plainClosers && tags.prefix !== '' ? [own, `</${tag}>`] : [own];
}

/** The first parameter closer after `from` (either spelling when mixed closers are allowed). */
function findParameterEnd(text: string, from: number, tags: InvokeTags): { start: number; end: number } | undefined {
  let best: { start: number; end: number } | undefined;
  for (const closer of closersOf('parameter', tags)) {
    const found = indexFrom(text, closer, from);
    if (found >= 0 && (best === undefined || found < best.start)) best = { start: found, end: found + closer.length };
  }
  return best;
}

/** A section `<open> invokes… <close>` at `start` (open '': bare invokes); a missing closer ends it after its last invoke. */
export function matchInvokeSection(text: string, start: number, section: { open: string; tag: string; tags: InvokeTags }, ctx: ParseContext, env: ScanEnv): BlockMatch {
  const open = literalAt(text, start, section.open);
  if (open === 'no') return NONE;
  if (open === 'partial') return outOfText(env);
  const invokes = readInvokes(text, start + section.open.length, section.tags, env, ctx.repairBudget);
  if (invokes.kind !== 'ok') return invokes.kind === 'incomplete' ? INCOMPLETE : NONE;
  let end = invokes.end;
  const closeAt = skipWhitespace(text, end);
  if (closeAt >= text.length && !env.final) return INCOMPLETE;
  const close = closerAt(text, closeAt, section.tag, section.tags);
  if (close === 'partial' && !env.final) return INCOMPLETE;
  if (typeof close === 'number') end = close;
  return invokeCalls(invokes.value, ctx, end);
}

/** Reads invokes until something else comes; the calls, or why not. */
export function readInvokes(text: string, from: number, tags: InvokeTags, env: ScanEnv, budget: RepairBudget): Read<WrittenInvoke[]> {
  const invokes: WrittenInvoke[] = [];
  let at = from;
  let end = from;
  for (;;) {
    at = skipWhitespace(text, at);
    if (at >= text.length) {
      if (!env.final) return READ_INCOMPLETE;
      break;
    }
    const read = readInvoke(text, at, tags, env, budget);
    if (read.kind === 'incomplete') return read;
    if (read.kind === 'none') break;
    invokes.push(read.value);
    at = end = read.end;
  }
  return invokes.length > 0 ? { kind: 'ok', value: invokes, end } : READ_NONE;
}

/** Turns invokes into a verdict: a block with any undeclared name stays content as a whole. */
export function invokeCalls(invokes: WrittenInvoke[], ctx: ParseContext, end: number): BlockMatch {
  const calls: ParsedCall[] = [];
  let rejected = 0;
  for (const invoke of invokes) {
    const name = ctx.resolveName(invoke.name);
    const call = name === null ? undefined : makeCall(invoke.name, invoke.json ?? argumentsOf(invoke, name, ctx), ctx);
    if (call) calls.push(call);
    else rejected++;
  }
  if (rejected > 0) return { kind: 'none', skipTo: end, rejectedNames: rejected };
  return { kind: 'calls', end, calls };
}

function argumentsOf(invoke: WrittenInvoke, toolName: string, ctx: ParseContext): Record<string, unknown> {
  const typed = typedArguments(
    invoke.params.filter((param) => param.isString === undefined).map((param) => [param.key, param.raw] as const),
    toolName,
    ctx,
  );
  const args: Record<string, unknown> = {};
  for (const param of invoke.params) {
    if (param.isString === undefined) args[param.key] = typed[param.key];
    else if (param.isString) args[param.key] = param.raw;
    else args[param.key] = parseJsonStrict(param.raw.trim()) ?? param.raw;
  }
  return args;
}
