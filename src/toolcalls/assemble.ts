import type { ToolCallFormat } from './formats/types.js';
import type { ReasoningMode } from './reasoning.js';
import { CallScanner, type ScanSegment } from './scanner.js';
import { isWhitespace } from './text/json-scan.js';
import type { ParseContext, ParsedCall, ParseResult } from './types.js';

/** What the client gets from scan segments, in order. */
export type AssembledPiece = { type: 'content'; text: string } | { type: 'reasoning'; text: string } | { type: 'calls'; calls: ParsedCall[]; format: string };

/**
 * Turns scan segments into what the client gets, in pieces as they come. Content is passed on
 * byte for byte (only call blocks were cut out); the one exception is content that is nothing but
 * whitespace, which is held back and dropped when the answer has calls (or, with reasoning split
 * out or dropped, when reasoning came before it: the layout between thinking and answer). The
 * output depends only on the text, not on how it was split, so streaming equals whole text.
 */
export class ContentAssembler {
  private started = false;
  private held = '';
  private sawCalls = false;
  private sawReasoning = false;

  constructor(private readonly reasoning: ReasoningMode = 'content') {}

  push(segment: ScanSegment): AssembledPiece[] {
    if (segment.type === 'calls') {
      this.sawCalls = true;
      return [{ type: 'calls', calls: segment.calls, format: segment.format }];
    }
    if (segment.type === 'text') return this.content(segment.text);
    // Reasoning on a channel of its own (harmony `analysis`) was never content: it is split out even
    // when reasoning stays in content, as servers that read the channels return it.
    if (this.reasoning === 'content' && segment.channel !== true) return this.content(segment.raw);
    this.sawReasoning = true;
    return this.reasoning !== 'drop' && segment.text !== '' ? [{ type: 'reasoning', text: segment.text }] : [];
  }

  /** The text is over: whitespace-only content is released only when nothing replaced it. */
  end(): AssembledPiece[] {
    if (this.started || this.held === '' || this.sawCalls || this.sawReasoning) return [];
    this.started = true;
    return [{ type: 'content', text: this.held }];
  }

  private content(text: string): AssembledPiece[] {
    if (text === '') return [];
    if (this.started) return [{ type: 'content', text }];
    let first = 0;
    while (first < text.length && isWhitespace(text.charCodeAt(first))) first++;
    this.held += text.slice(0, first);
    if (first === text.length) return [];
    this.started = true;
    const lead = this.sawReasoning ? '' : this.held;
    this.held = '';
    return [{ type: 'content', text: lead + text.slice(first) }];
  }
}

export interface ScanOutcome {
  /** The calls found and the content around them; null when there are none. */
  result: ParseResult | null;
  /** Well-formed calls to undeclared tools that were left as content. */
  rejectedNames: number;
  /** The content as the client gets it (null: nothing), whether or not there were calls. */
  content: string | null;
  /** Reasoning split out of the content (reasoning mode `split`), '' when none. */
  reasoning: string;
  /** Calls left out of a call block because they could not be read. */
  malformedCalls: number;
}

/** Whole-text parse with the given formats (the same engine the stream extractor runs). */
/** `cutOff`: the upstream stopped the answer mid-way; what is open at the end stays text (as CallScanner.endCutOff). */
export function scanWholeText(text: string, ctx: ParseContext, formats: readonly ToolCallFormat[], reasoningMode: ReasoningMode = 'content', cutOff = false): ScanOutcome {
  const scanner = new CallScanner(ctx, formats);
  const assembler = new ContentAssembler(reasoningMode);
  const segments = cutOff ? [...scanner.push(text, false), ...scanner.endCutOff()] : scanner.push(text, true);
  const pieces = segments.flatMap((segment) => assembler.push(segment));
  pieces.push(...assembler.end());
  const calls: ParsedCall[] = [];
  let content = '';
  let reasoning = '';
  let format: string | undefined;
  for (const piece of pieces) {
    if (piece.type === 'content') content += piece.text;
    else if (piece.type === 'reasoning') reasoning += piece.text;
    else {
      calls.push(...piece.calls);
      format ??= piece.format;
    }
  }
  const finalContent = content === '' ? null : content;
  const result: ParseResult | null = format === undefined ? null : { calls, content: finalContent, format, ...(reasoning !== '' ? { reasoning } : {}) };
  return { result, rejectedNames: scanner.rejectedNames, content: finalContent, reasoning, malformedCalls: scanner.malformedCalls };
}
