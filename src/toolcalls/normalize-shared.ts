import type { ChatChunk } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import { fixArguments } from './arguments.js';
import type { NameCodec } from './name-encoding.js';
import type { ReasoningMode } from './reasoning.js';
import type { DetailedNameResolver, NameMatchKind, ParseContext } from './types.js';

// What normalizeCompletion and normalizeStream share: the context they run in, the report they
// fill, and the per-call steps (name decoding + aliasing, argument repair + validation).

/** ParseContext's `tools` (declared tools by the client's names) and `resolveName`, plus: */
export interface NormalizeContext extends ParseContext {
  /** Detailed resolver (createNameResolver's result); also tells how a name matched, for the report. */
  resolveNameDetailed?: DetailedNameResolver;
  /** Decodes names the upstream used back to the client's names (see name-encoding.ts). */
  codec?: Pick<NameCodec, 'decode'>;
  /** Look for tool calls written in the answer's text when it has no structured ones. */
  textParsing: boolean;
  /**
   * Reasoning written in the text (<think>…</think> and the like): left in content as written
   * ('content', the default), moved to `reasoning_content` ('split'), or removed ('drop').
   */
  reasoning?: ReasoningMode;
  /** The provider that answered, named in a 502 for an answer that cannot be read. */
  provider?: string;
  /** The client used the legacy `functions` protocol: calls go out as `function_call`, finish_reason "function_call". */
  legacyFunctions?: boolean;
}

export interface NormalizeReport {
  /** Where the answer's calls came from: structured (native), parsed from text, or none. */
  mode: 'native' | 'text' | 'none';
  toolCalls: number;
  /** Calls whose name was mapped to a declared one other than exactly. */
  aliased: Array<{ from: string; to: string; how: NameMatchKind }>;
  /** Calls to names that are not declared tools (native ones are passed on; text ones stay content). */
  unknownNames: number;
  /** Calls whose arguments still break the tool's schema after repair. */
  invalidArguments: number;
  /** Calls whose arguments were repaired, wrapped or coerced. */
  repairedArguments: number;
  /** Calls written in text that could not be read and were left out while others in the same block were kept. */
  malformedCalls: number;
  /** The text format the calls were parsed from (mode "text"). */
  format?: string;
  /** What the tools' schemas could not check in these calls' arguments (distinct, at most MAX_UNCHECKED_NOTES). */
  unchecked: string[];
  /** The upstream cut the answer off (finish_reason `length` or `content_filter`): kept so, and said so. */
  cutOff: boolean;
}

/** A schema's unchecked parts are the same for every call to its tool: a few notes say it all. */
export const MAX_UNCHECKED_NOTES = 5;

/** The normalizer as a synchronous step: the pipeline feeds it chunk by chunk (batches go through without an async step per chunk). */
export interface StreamNormalizer {
  /** Filled in as the stream is read; complete once `end` ran. */
  readonly report: NormalizeReport;
  /** Appends what one upstream chunk becomes for the client to `out` (the same object when unchanged). */
  push(chunk: ChatChunk, out: ChatChunk[]): void;
  /**
   * What a batch of upstream chunks becomes, as push would make it chunk by chunk: `batch` itself
   * when every chunk goes out unchanged (the usual batch: no array per batch), else a new array.
   */
  pushAll(batch: ChatChunk[]): ChatChunk[];
  /** The upstream ended: appends what was held back and completes the report. */
  end(out: ChatChunk[]): void;
}

export function createReport(): NormalizeReport {
  return { mode: 'none', toolCalls: 0, aliased: [], unknownNames: 0, invalidArguments: 0, repairedArguments: 0, malformedCalls: 0, unchecked: [], cutOff: false };
}

/** The client-facing name for a name the upstream (or the model's text) used, noting aliasing and unknown names. */
export function resolveCallName(upstreamName: string, ctx: NormalizeContext, report: NormalizeReport): string {
  const decoded = ctx.codec ? ctx.codec.decode(upstreamName) : upstreamName;
  if (ctx.tools.has(decoded)) return decoded;
  const detailed = ctx.resolveNameDetailed?.(decoded);
  const name = detailed ? detailed.name : detailed === null ? null : ctx.resolveName(decoded);
  if (name === null) {
    // With no tools declared there is nothing to compare against: the name is passed on, not counted.
    if (ctx.tools.size > 0) report.unknownNames++;
    return decoded;
  }
  const how: NameMatchKind = detailed?.how ?? (name === decoded ? 'exact' : 'normalized');
  if (how !== 'exact') report.aliased.push({ from: decoded, to: name, how });
  return name;
}

/** The context for the text parsers: names written in text may be upstream-encoded ones too. */
export function parseContextOf(ctx: NormalizeContext): ParseContext {
  const codec = ctx.codec;
  if (!codec) return ctx;
  return { tools: ctx.tools, resolveName: (written) => ctx.resolveName(codec.decode(written)), repairBudget: ctx.repairBudget };
}

/** Records the aliasing of a call parsed from text (its name is already resolved). */
export function noteTextCallName(calledName: string | undefined, name: string, ctx: NormalizeContext, report: NormalizeReport): void {
  if (calledName === undefined) return;
  const decoded = ctx.codec ? ctx.codec.decode(calledName) : calledName;
  if (decoded === name) return;
  const how = ctx.resolveNameDetailed?.(decoded)?.how ?? 'normalized';
  if (how !== 'exact') report.aliased.push({ from: decoded, to: name, how });
}

/** Native arguments as sent (see nativeArgumentsText), checked against the tool's schema for the report only. */
export function checkNativeArguments(text: string, name: string, ctx: NormalizeContext, report: NormalizeReport): void {
  const tool = ctx.tools.get(name);
  if (!tool) return;
  // Checked as sent: what is not a JSON object is invalid (no repair is tried, none would be applied).
  const value = parsedObject(text);
  if (value === undefined) {
    report.invalidArguments++;
    return;
  }
  const checked = fixArguments(value, tool.function.parameters, ctx.repairBudget);
  if (checked.errors.length > 0 || checked.coerced) report.invalidArguments++;
  if (checked.unchecked.length > 0) noteUnchecked(report, checked.unchecked);
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The x-toolgate-warnings entries an answer adds (`kind=count`, as the repair step writes them):
 * what the client should know although toolgate changed nothing. Undefined when there is none.
 */
export function answerWarnings(report: NormalizeReport): string | undefined {
  const parts: string[] = [];
  if (report.cutOff) parts.push('answer_cut_off=1');
  if (report.unknownNames > 0) parts.push(`unknown_tool_name=${report.unknownNames}`);
  if (report.invalidArguments > 0) parts.push(`invalid_tool_arguments=${report.invalidArguments}`);
  if (report.malformedCalls > 0) parts.push(`malformed_text_call=${report.malformedCalls}`);
  return parts.length > 0 ? parts.join(',') : undefined;
}

/** Repaired, validated arguments for a call to `name` (built by toolgate from text); counts problems in the report. */
export function fixCallArguments(raw: unknown, name: string, ctx: NormalizeContext, report: NormalizeReport): string {
  const fixed = fixArguments(raw, ctx.tools.get(name)?.function.parameters, ctx.repairBudget);
  if (fixed.errors.length > 0) report.invalidArguments++;
  if (fixed.repaired || fixed.wrapped || fixed.coerced) report.repairedArguments++;
  if (fixed.unchecked.length > 0) noteUnchecked(report, fixed.unchecked);
  return fixed.arguments;
}

/** Notes what a schema check left out (a pattern RE2 cannot run, a size limit), once each. */
export function noteUnchecked(report: NormalizeReport, notes: readonly string[]): void {
  for (const note of notes) {
    if (report.unchecked.length >= MAX_UNCHECKED_NOTES) return;
    if (!report.unchecked.includes(note)) report.unchecked.push(note);
  }
}
