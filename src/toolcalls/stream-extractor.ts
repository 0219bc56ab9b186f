import { ProseAssembler } from './assemble.js';
import { ALL_FORMATS } from './formats/index.js';
import type { ToolCallFormat } from './formats/types.js';
import { CallScanner, type ScanSegment } from './scanner.js';
import type { ParseContext, ParsedCall } from './types.js';

// Incremental text → tool calls for streams. Prose is released as it arrives; only a suffix that
// could begin a call marker is held back (and, once a block began, the block until it is complete
// or the stream ends). Runs the same scanner as parseToolCallsFromText, so the concatenated prose
// and the calls equal the whole-text result however the text is split.

export type ExtractorEvent = { type: 'text'; text: string } | { type: 'call'; call: ParsedCall; format: string };

export class ToolCallStreamExtractor {
  private readonly scanner: CallScanner;
  private readonly prose = new ProseAssembler();
  private ended = false;
  /** Calls found so far. */
  callCount = 0;
  /** The format of the first call found. */
  format: string | undefined;

  constructor(ctx: ParseContext, formats: readonly ToolCallFormat[] = ALL_FORMATS) {
    this.scanner = new CallScanner(ctx, formats);
  }

  /** Well-formed calls to undeclared tools, left as content. */
  get rejectedNames(): number {
    return this.scanner.rejectedNames;
  }

  feed(delta: string): ExtractorEvent[] {
    if (this.ended || delta === '') return [];
    return this.toEvents(this.scanner.push(delta));
  }

  /** Flushes what was held back: the stream is over. */
  end(): ExtractorEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return this.toEvents(this.scanner.push('', true));
  }

  private toEvents(segments: ScanSegment[]): ExtractorEvent[] {
    const events: ExtractorEvent[] = [];
    let text = '';
    for (const segment of segments) {
      if (segment.type === 'text') {
        text += this.prose.push(segment.text);
        continue;
      }
      if (text !== '') events.push({ type: 'text', text });
      text = '';
      this.prose.cut();
      this.format ??= segment.format;
      for (const call of segment.calls) events.push({ type: 'call', call, format: segment.format });
      this.callCount += segment.calls.length;
    }
    if (text !== '') events.push({ type: 'text', text });
    return events;
  }
}

/** Convenience factory. */
export function createStreamExtractor(ctx: ParseContext, formats?: readonly ToolCallFormat[]): ToolCallStreamExtractor {
  return new ToolCallStreamExtractor(ctx, formats);
}
