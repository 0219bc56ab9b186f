import { CallScanner } from './scanner.js';
import type { ToolCallFormat } from './formats/types.js';
import { isWhitespace } from './text/json-scan.js';
import type { ParseContext, ParsedCall, ParseResult } from './types.js';

/**
 * Joins the prose left around cut-out call blocks, in pieces as they come: leading and trailing
 * whitespace is dropped, and the whitespace on both sides of a cut collapses to one newline (or
 * one space when there was none). The output depends only on the text, not on how it was split,
 * so streaming and whole-text parsing give the same content.
 */
export class ProseAssembler {
  private started = false;
  private pendingWhitespace = '';
  private cutSinceProse = false;

  /** Returns the prose that can be released now. */
  push(piece: string): string {
    let first = 0;
    while (first < piece.length && isWhitespace(piece.charCodeAt(first))) first++;
    if (first === piece.length) {
      if (this.started) this.pendingWhitespace += piece;
      return '';
    }
    let last = piece.length - 1;
    while (isWhitespace(piece.charCodeAt(last))) last--;
    const gap = this.pendingWhitespace + piece.slice(0, first);
    const lead = !this.started ? '' : this.cutSinceProse ? (gap.includes('\n') ? '\n' : ' ') : gap;
    this.started = true;
    this.cutSinceProse = false;
    this.pendingWhitespace = piece.slice(last + 1);
    return lead + piece.slice(first, last + 1);
  }

  /** A call block was cut out here. */
  cut(): void {
    if (this.started) this.cutSinceProse = true;
  }
}

export interface ScanOutcome {
  result: ParseResult | null;
  /** Well-formed calls to undeclared tools that were left as content. */
  rejectedNames: number;
}

/** Whole-text parse with the given formats (the same engine the stream extractor runs). */
export function scanWholeText(text: string, ctx: ParseContext, formats: readonly ToolCallFormat[]): ScanOutcome {
  const scanner = new CallScanner(ctx, formats);
  const segments = scanner.push(text, true);
  const prose = new ProseAssembler();
  const calls: ParsedCall[] = [];
  let content = '';
  let format: string | undefined;
  for (const segment of segments) {
    if (segment.type === 'text') {
      content += prose.push(segment.text);
    } else {
      prose.cut();
      calls.push(...segment.calls);
      format ??= segment.format;
    }
  }
  const result = format === undefined ? null : { calls, content: content === '' ? null : content, format };
  return { result, rejectedNames: scanner.rejectedNames };
}
