import { singleRequiredStringProperty, toArgumentsJson } from '../arguments.js';
import { MAX_NESTING, exceedsDepth, isPlainObject, parseJsonStrict } from '../text/json-scan.js';
import type { ParseContext, ParsedCall } from '../types.js';
import type { ReasoningWrapper } from '../reasoning.js';
import type { BlockMatch, ScanEnv, ToolCallFormat } from './types.js';

// Building blocks shared by the format modules.

export const NONE: BlockMatch = { kind: 'none' };
export const INCOMPLETE: BlockMatch = { kind: 'incomplete' };

/** `none` when the text is final, `incomplete` otherwise: for blocks that simply ran out of text. */
export function outOfText(env: ScanEnv): BlockMatch {
  return env.final ? NONE : INCOMPLETE;
}

/** Does `literal` occur at `at`: yes, no, or the text ends partway through it. */
export function literalAt(text: string, at: number, literal: string): 'yes' | 'no' | 'partial' {
  const available = text.length - at;
  if (available >= literal.length) return text.startsWith(literal, at) ? 'yes' : 'no';
  return literal.startsWith(text.slice(at)) ? 'partial' : 'no';
}

/**
 * Where `literal` next occurs at or after `from` (-1: nowhere). Remembers its last answer per
 * text and literal, so asking again from each of many openers (a marker repeated without its
 * closing tag) costs one pass over the text instead of one per opener.
 */
export function indexFrom(text: string, literal: string, from: number): number {
  let searches = lastSearch;
  const memo = searches?.get(literal);
  if (memo && memo.text === text && memo.from <= from && (memo.found < 0 || memo.found >= from)) return memo.found;
  const found = text.indexOf(literal, from);
  // Past 64 literals a new Map, not clear(): see lastSearch.
  if (searches === undefined || searches.size >= 64) lastSearch = searches = new Map();
  searches.set(literal, { text, from, found });
  return found;
}

// The searches of one scanner pass: a Map made at the pass's first search and dropped, not cleared,
// when the pass ends. A module-level Map cleared per pass gets, once it is in the old generation,
// each next table there, and the dead table keeps the texts it held alive through scavenges: every
// parse promoted its whole text (~4 KB per Qwen3-Coder answer of 3.5 KB) until a mark-compact.
let lastSearch: Map<string, { text: string; from: number; found: number }> | undefined;

/**
 * The last answer of a forward search whose answer for `from` is decided by the first position at
 * or after `from` that stops it (a qualifying match, or where it ran out of text): asked again from
 * any `from` between the last `from` and that stop, the answer is the same, so many openers that
 * each search the same rest of the text cost one pass. `final` is part of the key.
 */
export class ForwardSearchMemo<T> {
  private last: { text: string; final: boolean; from: number; stop: number; answer: T } | undefined;

  constructor() {
    memos.add(this);
  }

  get(text: string, final: boolean, from: number): { answer: T } | undefined {
    const last = this.last;
    if (!last || last.text !== text || last.final !== final || from < last.from || from > last.stop) return undefined;
    return { answer: last.answer };
  }

  /** `stop`: the position that decided `answer` (no position in [from, stop) could have). */
  remember(text: string, final: boolean, from: number, stop: number, answer: T): T {
    this.last = { text, final, from, stop, answer };
    return answer;
  }

  forget(): void {
    this.last = undefined;
  }
}

const memos = new Set<ForwardSearchMemo<unknown>>();

/** Forgets indexFrom's and the forward searches' memos (the scanner calls this after each pass so texts are not kept alive). */
export function releaseSearches(): void {
  lastSearch = undefined;
  for (const memo of memos) memo.forget();
}

/** Resolves the written name to a declared tool; `undefined` when it is not one (or its arguments nest too deep). */
export function makeCall(writtenName: string, args: unknown, ctx: ParseContext): ParsedCall | undefined {
  const trimmed = writtenName.trim();
  if (trimmed === '' || exceedsDepth(args)) return undefined;
  const name = ctx.resolveName(trimmed);
  if (name === null) return undefined;
  const call: ParsedCall = { name, arguments: toArgumentsJson(args, ctx.repairBudget) };
  if (trimmed !== name) call.calledName = trimmed;
  return call;
}

/** A call written as JSON, before its name is checked. */
export interface CallShape {
  name: string;
  args: unknown;
}

const BARE_CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'id', 'type', 'call_id']);

/**
 * Reads the call shapes models write as JSON: {name, arguments|parameters}, OpenAI's
 * {type:"function", function:{…}}, {tool_calls:[…]}, or an array of those (all or nothing).
 * `strict` (for JSON without a marker) also demands an arguments key and no unknown keys.
 */
export function callShapesOf(value: unknown, strict: boolean): CallShape[] | undefined {
  // Calls nest a few levels around their arguments; anything deeper is not a call (and the
  // recursion below stays shallow).
  return exceedsDepth(value, MAX_NESTING + 3) ? undefined : shapesOf(value, strict);
}

function shapesOf(value: unknown, strict: boolean): CallShape[] | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const shapes: CallShape[] = [];
    for (const item of value) {
      const inner = shapesOf(item, strict);
      if (!inner) return undefined;
      shapes.push(...inner);
    }
    return shapes;
  }
  if (!isPlainObject(value)) return undefined;
  if (Array.isArray(value.tool_calls) && Object.keys(value).length === 1) return shapesOf(value.tool_calls, strict);
  if (isPlainObject(value.function) && typeof value.function.name === 'string') {
    const extra = Object.keys(value).some((key) => key !== 'function' && key !== 'type' && key !== 'id' && key !== 'index');
    if (strict && extra) return undefined;
    // A tool definition ({function: {name, description, parameters: <schema>}}) is not a call.
    if (!('arguments' in value.function) && ('description' in value.function || isObjectSchema(value.function.parameters))) return undefined;
    const args = value.function.arguments ?? value.function.parameters;
    return isArgumentsLike(args) ? [{ name: value.function.name, args }] : undefined;
  }
  if (typeof value.name !== 'string') return undefined;
  const hasArgs = 'arguments' in value || 'parameters' in value;
  if (strict && (!hasArgs || Object.keys(value).some((key) => !BARE_CALL_KEYS.has(key)))) return undefined;
  // {name, parameters: <an object schema>} (with or without a description) is a definition too.
  if (!('arguments' in value) && isObjectSchema(value.parameters)) return undefined;
  const args = value.arguments ?? value.parameters;
  return isArgumentsLike(args) ? [{ name: value.name, args }] : undefined;
}

/** A JSON Schema of an object (`type: "object"` with `properties`): what a tool definition's `parameters` holds, never a call's values. */
function isObjectSchema(value: unknown): boolean {
  return isPlainObject(value) && value.type === 'object' && isPlainObject(value.properties);
}

/** Turns shapes into calls; a block with any undeclared name stays content as a whole. */
export function callsFromShapes(shapes: CallShape[], ctx: ParseContext, end: number, skipTo?: number): BlockMatch {
  const calls: ParsedCall[] = [];
  let rejected = 0;
  for (const shape of shapes) {
    if (exceedsDepth(shape.args)) return { kind: 'none', ...(skipTo !== undefined ? { skipTo } : {}) };
    const call = makeCall(shape.name, freeTextArguments(shape, ctx), ctx);
    if (call) calls.push(call);
    else rejected++;
  }
  if (rejected > 0) return { kind: 'none', rejectedNames: rejected, ...(skipTo !== undefined ? { skipTo } : {}) };
  return { kind: 'calls', end, calls };
}

/**
 * `"arguments": "hello"`: a string that is not JSON object text is the value of the tool's single
 * required string parameter when it has one (as the `<TOOL>` format reads free text); otherwise it
 * is left to the arguments repair (wrapped as `{"raw_arguments": …}` and counted as invalid).
 */
function freeTextArguments(shape: CallShape, ctx: ParseContext): unknown {
  if (typeof shape.args !== 'string') return shape.args;
  const trimmed = shape.args.trim();
  if (trimmed === '' || trimmed.startsWith('{') || trimmed.startsWith('[')) return shape.args;
  const name = ctx.resolveName(shape.name.trim());
  const parameter = name === null ? undefined : singleRequiredStringProperty(ctx.tools.get(name)?.function.parameters);
  if (parameter === undefined) return shape.args;
  const quoted = trimmed.startsWith('"') ? parseJsonStrict(trimmed) : undefined;
  return { [parameter]: typeof quoted === 'string' ? quoted : shape.args };
}

/** Arguments must be an object (or its JSON text) for a call to count. */
export function isArgumentsLike(args: unknown): boolean {
  return args === undefined || args === null || isPlainObject(args) || typeof args === 'string';
}

/** The formats to ask at each trigger character, in their order. */
export function byTriggerOf(formats: readonly ToolCallFormat[]): Map<number, ToolCallFormat[]> {
  const byTrigger = new Map<number, ToolCallFormat[]>();
  for (const format of formats) {
    for (const trigger of format.triggers) {
      const code = trigger.charCodeAt(0);
      const list = byTrigger.get(code) ?? [];
      list.push(format);
      byTrigger.set(code, list);
    }
  }
  return byTrigger;
}

/** byTriggerOf's table, read-only: what a scanner asks at each character. */
export type TriggerTable = ReadonlyMap<number, readonly ToolCallFormat[]>;

// A scanner is made per streamed choice, over one of a few format lists (all formats, or none):
// each list's table is built once and shared read-only, not rebuilt (~1 KB) for every stream.
const tables = new WeakMap<readonly ToolCallFormat[], TriggerTable>();
const NO_TRIGGERS: TriggerTable = new Map();

/** byTriggerOf(formats), shared by every scanner over the same list. */
export function triggerTableOf(formats: readonly ToolCallFormat[]): TriggerTable {
  if (formats.length === 0) return NO_TRIGGERS;
  let table = tables.get(formats);
  if (table === undefined) {
    table = byTriggerOf(formats);
    tables.set(formats, table);
  }
  return table;
}

const starts = new WeakMap<readonly ReasoningWrapper[], ReadonlySet<number>>();

/** The first characters of the wrappers' openers and closers, built once per list like triggerTableOf: read-only. */
export function wrapperStartsOf(wrappers: readonly ReasoningWrapper[]): ReadonlySet<number> {
  let set = starts.get(wrappers);
  if (set === undefined) {
    set = new Set(wrappers.flatMap((w) => [w.open.charCodeAt(0), w.close.charCodeAt(0)]));
    starts.set(wrappers, set);
  }
  return set;
}
