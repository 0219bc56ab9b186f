import { type ScanOutcome, scanWholeText } from './assemble.js';
import { ALL_FORMATS } from './formats/index.js';
import type { ToolCallFormat } from './formats/types.js';
import type { ReasoningMode } from './reasoning.js';
import type { ParseContext, ParseResult } from './types.js';

// Text → tool calls for a whole answer. Only the formats whose cheap `detect` passes take part;
// `detect` is a necessary condition, so this equals running them all (and equals streaming).

export interface ParseOptions {
  /** What happens to reasoning (<think>…</think> and the like); default 'content' (left as written). */
  reasoning?: ReasoningMode;
  /** Look for calls at all (false: only reasoning is handled). Default true. */
  calls?: boolean;
  /** The upstream cut the answer off (finish_reason `length` or `content_filter`): a block open at the end stays text. */
  cutOff?: boolean;
}

/** The calls to declared tools written in `text`, with the remaining prose; null when there are none. */
export function parseToolCallsFromText(text: string, ctx: ParseContext): ParseResult | null {
  return parseWithDetails(text, ctx).result;
}

/** As parseToolCallsFromText, also counting well-formed calls to undeclared tools (left as content). */
export function parseWithDetails(text: string, ctx: ParseContext, options: ParseOptions = {}): ScanOutcome {
  const reasoning = options.reasoning ?? 'content';
  const formats = options.calls === false || ctx.tools.size === 0 ? [] : detectFormats(text);
  if (text === '' || (formats.length === 0 && reasoning === 'content')) return { result: null, rejectedNames: 0, content: text === '' ? null : text, reasoning: '', malformedCalls: 0 };
  return scanWholeText(text, ctx, formats, reasoning, options.cutOff === true);
}

export function detectFormats(text: string): ToolCallFormat[] {
  return ALL_FORMATS.filter((format) => format.detect(text));
}
