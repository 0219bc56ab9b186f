import { mapBatch } from '../util/batch.js';
import type { ChatChunk, ChunkChoice, ChunkDelta, ToolCallDelta } from '../api/chat-types.js';

// Small builders of what the stream normalizer sends: chunks made from the upstream's header,
// deltas with their calls replaced, the first delta's role, and the legacy `function_call` shape.

/** The fields a chunk built by the normalizer takes from the upstream's chunk. */
export type ChunkHeader = Pick<ChatChunk, 'id' | 'created' | 'model' | 'system_fingerprint'>;

export function chunkLike(template: ChunkHeader, choice: ChunkChoice): ChatChunk {
  const chunk: ChatChunk = { id: template.id, object: 'chat.completion.chunk', created: template.created, model: template.model, choices: [choice] };
  if (template.system_fingerprint !== undefined) chunk.system_fingerprint = template.system_fingerprint;
  return chunk;
}

export function withToolCalls(delta: ChunkDelta, toolCalls: ToolCallDelta[]): ChunkDelta {
  if (toolCalls.length > 0) return { ...delta, tool_calls: toolCalls };
  const { tool_calls: _dropped, ...rest } = delta;
  return rest;
}

/** A piece that says nothing (held-back text left an empty delta): not worth a chunk. */
export function isBlank(piece: ChunkChoice): boolean {
  if (piece.finish_reason !== null || (piece.logprobs !== undefined && piece.logprobs !== null)) return false;
  return Object.entries(piece.delta).every(([key, value]) => value === undefined || value === null || (key === 'content' && value === ''));
}

/** The first delta of a choice says who speaks (SDKs' final-answer helpers need it). */
export function withRole(piece: ChunkChoice): ChunkChoice {
  if (piece.delta.role === 'assistant') return piece;
  return { ...piece, delta: { role: 'assistant', ...piece.delta } };
}

/**
 * A piece in the legacy protocol: the first call (index 0) as `function_call` fragments, other
 * calls left out (the protocol had one call per answer), finish_reason "function_call".
 * Undefined when nothing is left of the piece.
 */
export function toLegacyPiece(piece: ChunkChoice): ChunkChoice | undefined {
  const calls = piece.delta.tool_calls;
  const finish = piece.finish_reason === 'tool_calls' ? 'function_call' : piece.finish_reason;
  if (!calls && finish === piece.finish_reason) return piece;
  let delta: ChunkDelta = piece.delta;
  if (calls) {
    const { tool_calls: _calls, ...rest } = piece.delta;
    delta = rest;
    const first = calls.find((call) => call.index === 0);
    if (first) {
      const fn: { name?: string; arguments: string } = { arguments: first.function?.arguments ?? '' };
      if (first.function?.name !== undefined) fn.name = first.function.name;
      delta = { ...rest, function_call: fn };
    }
  }
  const next: ChunkChoice = { ...piece, delta, finish_reason: finish };
  return isBlank(next) ? undefined : next;
}

/** Chunks in the legacy protocol (toLegacyPiece per choice): for a stream judged as tool_calls first (the contract). */
export function toLegacyChunks(chunks: ChatChunk[]): ChatChunk[] {
  return mapBatch(chunks, (chunk) => {
    const choices = mapBatch(chunk.choices, toLegacyPiece);
    if (choices === chunk.choices) return chunk;
    return choices.length > 0 || (chunk.usage !== undefined && chunk.usage !== null) ? { ...chunk, choices } : undefined;
  });
}
