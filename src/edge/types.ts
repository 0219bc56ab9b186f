import type { ChatChunk, ChatCompletion } from '../api/chat-types.js';
import type { GatewayError } from '../errors.js';

// The shape every front door shares: parse and repair in the dialect (pure passes), translate in,
// `runChat`, translate out as JSON or events. A dialect is the two translations out; the edge
// runner (run.ts) does the rest, so a new front door is a folder of translations, not a new path.

/** Events for one stream, synthesized from the normalized chat chunks. */
export interface EventSynthesizer<Event> {
  /** What goes out before the first chunk. */
  start(): Event[];
  feed(chunk: ChatChunk): Event[];
  /** After the last chunk: close what is open, the closing events. */
  end(): Event[];
  /** After end's events are out: work that must finish before the terminal events (storing), and those events. */
  settle?(): Promise<Event[]>;
  /** The events for a failure after the stream started (the stream ends after them); `message` has the configured secrets redacted. */
  fail(error: GatewayError, message: string): Event[];
}

export interface EdgeDialect<Answer, Event> {
  /** Names the dialect in logs. */
  readonly name: string;
  /** The answer for a finished (normalized) completion. */
  answer(completion: ChatCompletion): Answer | Promise<Answer>;
  /** A fresh synthesizer for one stream. */
  events(): EventSynthesizer<Event>;
  /** One SSE frame for an event. */
  frame(event: Event): string;
}

export type EdgeResult<Answer> =
  | { kind: 'json'; answer: Answer; headers: Record<string, string> }
  /** Ready SSE frames; errors after the start are already frames, never thrown. */
  | { kind: 'stream'; frames: AsyncIterable<string>; headers: Record<string, string> };
