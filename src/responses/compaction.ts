import { errors } from '../errors.js';
import { isFunctionCall, isFunctionOutput, isMessage, itemText, type Item } from '../api/responses-types.js';

// Compaction items (POST /v1/responses/compact) made on bridged upstreams, and read back (pure).
// OpenAI's `encrypted_content` is opaque and only OpenAI reads it. On every other upstream the
// summary is written by the upstream model, and toolgate keeps it in the item as an envelope it
// can read back: `tgc1.` + base64url(JSON {summary}). It is not encrypted (the client wrote the
// conversation it summarizes). When a later request's input holds one, the summary becomes a user
// message the upstream model reads, where the item stood.

const PREFIX = 'tgc1.';
/** A summary longer than this is refused on the way back (the item is then not one toolgate made). */
export const MAX_SUMMARY_CHARS = 1024 * 1024;
/** Transcript characters sent to the upstream model for one compaction. */
export const MAX_TRANSCRIPT_CHARS = 2 * 1024 * 1024;

export const SUMMARY_HEADER = '[Summary of the earlier conversation, written when it was compacted]';

export function encodeCompaction(summary: string): string {
  return PREFIX + Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url');
}

/** The summary in a toolgate envelope; undefined for anything else (OpenAI's own encrypted content). */
export function decodeCompaction(content: unknown): string | undefined {
  if (typeof content !== 'string' || !content.startsWith(PREFIX)) return undefined;
  // base64url is 4 characters for 3 bytes; a JSON string escapes at most 6 characters per character.
  if (content.length > PREFIX.length + Math.ceil((MAX_SUMMARY_CHARS * 6 + 16) / 3) * 4) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(content.slice(PREFIX.length), 'base64url').toString('utf8'));
    const summary = typeof parsed === 'object' && parsed !== null ? (parsed as { summary?: unknown }).summary : undefined;
    return typeof summary === 'string' && summary.length <= MAX_SUMMARY_CHARS ? summary : undefined;
  } catch {
    return undefined;
  }
}

const isCompaction = (item: Item): boolean => item.type === 'compaction';

/**
 * Compaction items → the context the upstream model reads. toolgate's own become a user message;
 * OpenAI's stay for a native upstream (it reads them) and are a 400 on the bridge (no one else can).
 */
export function expandCompactions(items: Item[], native: boolean): Item[] {
  if (!items.some(isCompaction)) return items;
  return items.flatMap((item, index) => {
    if (!isCompaction(item)) return [item];
    const summary = decodeCompaction(item.encrypted_content);
    if (summary !== undefined) return [{ type: 'message', role: 'user', content: `${SUMMARY_HEADER}\n${summary}` }];
    if (native) return [item];
    throw errors.invalidRequest(
      `Invalid 'input[${index}]': this compaction item was not made by toolgate (its encrypted_content is another provider's) and only that provider can read it. Compact the conversation again on this model.`,
      `input[${index}]`,
      'unreadable_compaction_item',
    );
  });
}

/** The conversation as plain text for the model that summarizes it (bounded). */
export function transcriptOf(items: readonly Item[]): string {
  let out = '';
  for (const item of items) {
    let line: string;
    if (isMessage(item)) line = `${String(item.role)}: ${itemText(item.content)}`;
    else if (isFunctionCall(item)) line = `assistant called tool ${String(item.name)} (call ${String(item.call_id)}) with ${String(item.arguments)}`;
    else if (isFunctionOutput(item)) line = `tool result for call ${String(item.call_id)}: ${typeof item.output === 'string' ? item.output : itemText(item.output)}`;
    else if (isCompaction(item)) line = `${SUMMARY_HEADER}\n${decodeCompaction(item.encrypted_content) ?? '(unreadable)'}`;
    else continue;
    out += `${line}\n\n`;
    if (out.length > MAX_TRANSCRIPT_CHARS) {
      throw errors.invalidRequest(`The conversation to compact is longer than ${MAX_TRANSCRIPT_CHARS} characters.`, 'input', 'compaction_too_large');
    }
  }
  return out;
}
