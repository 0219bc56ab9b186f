import type { ParseContext, ParsedCall, ParseResult } from '../types.js';

/** What the scanner knows about the position a format is asked about. */
export interface ScanEnv {
  /** No more text will come: decide now instead of answering `incomplete`. */
  final: boolean;
  /** Only whitespace, reasoning (`<think>`) or earlier call blocks come before this position. */
  atAnswerStart: boolean;
  /** Only spaces or tabs come before this position on its line. */
  atLineStart: boolean;
  /** The character before this position ('\n' at the very start). */
  prevChar: string;
  /** The last character before this position that is not a space or tab ('\n' at a line start). Absent: unknown. */
  prevNonBlank?: string;
  /**
   * This position is inside a reasoning block whose closing marker never came (the text is final).
   * Only blocks that start with a model's own call marker may be `calls` here, never guesses
   * (bare JSON, bare pythonic lists, bare `functions.x:0 {…}` ids). Absent means false.
   */
  inReasoning?: boolean;
}

/**
 * A piece of a block, in text order (see BlockMatch `segments`): content the client sees, reasoning,
 * or calls. `raw` of a reasoning piece is how it was written (markers included); it is what goes
 * to content when reasoning stays in content (the default). Absent `raw` means the same as `text`.
 * `channel`: the model wrote it on a channel of its own that was never content (gpt-oss harmony
 * `analysis`): it goes to reasoning even when reasoning stays in content, and is removed with `drop`.
 */
export type FormatSegment =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; raw?: string; channel?: true }
  | { type: 'calls'; calls: ParsedCall[] };

/**
 * A format's verdict on the text at one position.
 * - `calls`: text[start, end) is a call block and becomes these calls; `malformed` counts calls in
 *   it that could not be read and were left out (a finding for the report).
 * - `segments`: text[start, end) becomes these pieces in order (content, reasoning, calls), e.g. a
 *   harmony message sequence. Same stability rule as `calls`; `malformed` as for `calls` (a Mistral
 *   `[TOOL_CALLS]` with nothing after it is removed and counted).
 * - `none`: not a call block; the scanner moves on (to `skipTo` when given: malformed blocks
 *   stay content as a whole). `rejectedNames` counts well-formed calls to undeclared tools.
 * - `incomplete`: cannot tell before more text arrives (never returned when `env.final`).
 */
export type BlockMatch =
  | { kind: 'calls'; end: number; calls: ParsedCall[]; malformed?: number }
  | { kind: 'segments'; end: number; segments: FormatSegment[]; malformed?: number }
  | { kind: 'none'; skipTo?: number; rejectedNames?: number }
  | { kind: 'incomplete' };

/**
 * One text tool-call syntax. `matchAt` must be prefix-stable: a `calls` or `none` verdict given
 * on a prefix (env.final false) must be the same for every longer text — that is what makes the
 * streamed result equal the whole-text result however the text is split.
 */
export interface ToolCallFormat {
  readonly name: string;
  /** Characters a block of this format can start with; the scanner only asks at those. */
  readonly triggers: string;
  /** Cheap necessary condition: false means `matchAt` answers plain `none` everywhere in `text`. */
  detect(text: string): boolean;
  matchAt(text: string, start: number, ctx: ParseContext, env: ScanEnv): BlockMatch;
  /** Whole-text parse with this format alone (think blocks and code fences still respected). */
  parse(text: string, ctx: ParseContext): ParseResult | null;
}

export type FormatDefinition = Omit<ToolCallFormat, 'parse'>;
