import { ContentAssembler } from './assemble.js';
import { ALL_FORMATS } from './formats/index.js';
import type { ToolCallFormat } from './formats/types.js';
import type { ReasoningMode } from './reasoning.js';
import { CallScanner } from './scanner.js';
import type { ParseContext, ParsedCall } from './types.js';

// Incremental text → tool calls for streams. Prose is released as it arrives; only a suffix that
// could begin a call marker is held back (and, once a block began, the block until it is complete
// or the stream ends). Runs the same scanner and assembler as parseToolCallsFromText, so the
// concatenated prose, reasoning and calls equal the whole-text result however the text is split.

export type ExtractorEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'call'; call: ParsedCall; format: string };

export interface ExtractorOptions {
  formats?: readonly ToolCallFormat[];
  reasoning?: ReasoningMode;
}

export class ToolCallStreamExtractor {
  private readonly scanner: CallScanner;
  private readonly assembler: ContentAssembler;
  private ended = false;
  /** The assembler released content already (from then on it passes text through as it is). */
  private textStarted = false;
  /** Every delta so far was taken as prose (takeProse): the scanner holds no text, so its final pass finds nothing. */
  private scannerEmpty = true;
  /** Calls found so far. */
  callCount = 0;
  /** The format of the first call found. */
  format: string | undefined;

  constructor(ctx: ParseContext, options: readonly ToolCallFormat[] | ExtractorOptions = {}) {
    const { formats = ALL_FORMATS, reasoning = 'content' } = isFormatList(options) ? { formats: options } : options;
    this.scanner = new CallScanner(ctx, formats);
    this.assembler = new ContentAssembler(reasoning);
  }

  /** Well-formed calls to undeclared tools, left as content. */
  get rejectedNames(): number {
    return this.scanner.rejectedNames;
  }

  /** Calls left out of call blocks because they could not be read. */
  get malformedCalls(): number {
    return this.scanner.malformedCalls;
  }

  feed(delta: string): ExtractorEvent[] {
    if (this.ended || delta === '') return [];
    // Plain prose with nothing held back (most tokens): the scanner's full pass would say the same.
    if (this.scanner.takeProse(delta)) return this.toEvents(this.assembler.push({ type: 'text', text: delta }));
    this.scannerEmpty = false;
    return this.toEvents(this.scanner.push(delta).flatMap((segment) => this.assembler.push(segment)));
  }

  /**
   * True when `delta` goes to the client exactly as it is — what feed would return as one text event
   * equal to `delta` — decided without building the events: plain prose, nothing held back, and the
   * answer's text already begun. False leaves the extractor as it was (call feed).
   */
  passes(delta: string): boolean {
    return !this.ended && this.textStarted && delta !== '' && this.scanner.takeProse(delta);
  }

  /** Flushes what was held back: the stream is over. `cutOff`: the upstream stopped it mid-answer (held text stays text). */
  end(cutOff = false): ExtractorEvent[] {
    if (this.ended) return [];
    this.ended = true;
    // The usual end of a prose answer (or of the text before a native call): nothing was held back,
    // and the scanner's final pass (a format filter, a trigger table, the scan) would return nothing.
    if (this.scannerEmpty) return this.toEvents(this.assembler.end());
    const last = cutOff ? this.scanner.endCutOff() : this.scanner.push('', true);
    const pieces = last.flatMap((segment) => this.assembler.push(segment));
    return this.toEvents([...pieces, ...this.assembler.end()]);
  }

  private toEvents(pieces: ReturnType<ContentAssembler['push']>): ExtractorEvent[] {
    const events: ExtractorEvent[] = [];
    for (const piece of pieces) {
      const last = events[events.length - 1];
      if (piece.type === 'calls') {
        this.format ??= piece.format;
        for (const call of piece.calls) events.push({ type: 'call', call, format: piece.format });
        this.callCount += piece.calls.length;
        continue;
      }
      if (piece.type === 'content') this.textStarted = true;
      if (last !== undefined && last.type === (piece.type === 'content' ? 'text' : 'reasoning')) {
        last.text += piece.text;
      } else {
        events.push({ type: piece.type === 'content' ? 'text' : 'reasoning', text: piece.text });
      }
    }
    return events;
  }
}

function isFormatList(options: readonly ToolCallFormat[] | ExtractorOptions): options is readonly ToolCallFormat[] {
  return Array.isArray(options);
}

/** Convenience factory. */
export function createStreamExtractor(ctx: ParseContext, options?: readonly ToolCallFormat[] | ExtractorOptions): ToolCallStreamExtractor {
  return new ToolCallStreamExtractor(ctx, options);
}
