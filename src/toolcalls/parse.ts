import { scanWholeText } from './assemble.js';
import { ALL_FORMATS } from './formats/index.js';
import type { ToolCallFormat } from './formats/types.js';
import type { ParseContext, ParseResult } from './types.js';

// Text → tool calls for a whole answer. Only the formats whose cheap `detect` passes take part;
// `detect` is a necessary condition, so this equals running them all (and equals streaming).

/** The calls to declared tools written in `text`, with the remaining prose; null when there are none. */
export function parseToolCallsFromText(text: string, ctx: ParseContext): ParseResult | null {
  return parseWithDetails(text, ctx).result;
}

/** As parseToolCallsFromText, also counting well-formed calls to undeclared tools (left as content). */
export function parseWithDetails(text: string, ctx: ParseContext): { result: ParseResult | null; rejectedNames: number } {
  if (ctx.tools.size === 0 || text === '') return { result: null, rejectedNames: 0 };
  const formats = detectFormats(text);
  if (formats.length === 0) return { result: null, rejectedNames: 0 };
  return scanWholeText(text, ctx, formats);
}

export function detectFormats(text: string): ToolCallFormat[] {
  return ALL_FORMATS.filter((format) => format.detect(text));
}
