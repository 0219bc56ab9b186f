import type { BlockMatch, FormatSegment } from './formats/types.js';
import type { ParsedCall } from './types.js';

// What the scanner emits, and how a format's verdict becomes it.

/**
 * What the scanner decided, in text order. Concatenating every `text`, every reasoning `raw` and the
 * text of every call block gives back the input: nothing is re-spaced or dropped here.
 */
export type ScanSegment =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; raw: string; channel?: true }
  | { type: 'calls'; calls: ParsedCall[]; format: string };

/** A format's block verdict as scan segments; undefined for `none`. */
export function blockOf(match: BlockMatch, format: string): { kind: 'block'; segments: ScanSegment[]; end: number } | undefined {
  if (match.kind === 'calls') return { kind: 'block', segments: [{ type: 'calls', calls: match.calls, format }], end: match.end };
  if (match.kind !== 'segments') return undefined;
  return { kind: 'block', segments: match.segments.map((segment) => scanSegmentOf(segment, format)), end: match.end };
}

function scanSegmentOf(segment: FormatSegment, format: string): ScanSegment {
  if (segment.type === 'calls') return { type: 'calls', calls: segment.calls, format };
  if (segment.type === 'reasoning') return { type: 'reasoning', text: segment.text, raw: segment.raw ?? segment.text, ...(segment.channel ? { channel: true } : {}) };
  return segment;
}
