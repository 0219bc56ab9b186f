import type { ChatChunk, ChunkChoice } from '../api/chat-types.js';

// Most events of a stream are the same bytes but for one string: the content token. Once one such
// event was parsed, the next ones are recognized from their raw text — the same text before and
// after the content string, a well-formed JSON string between — and their chunk is built from the
// parsed one with the new content, without parsing or checking the event again. The chunk built
// equals what JSON.parse would have returned (same keys, same order, same values), so everything
// downstream (normalization, the text-call extractor, metrics, the recorder, byte-for-byte relay)
// behaves exactly as for a parsed event. Anything else (tool calls, finish, usage, another shape,
// an escape the quick check does not take) is parsed and checked as before.

const KEY = '"content":';

/** How many events were parsed and checked, and how many were recognized from their text. */
export const chunkReadStats = { parsed: 0, templated: 0 };

export class ContentTemplate {
  private prefix = '';
  private suffix = '';
  private base: ChatChunk | undefined;
  private choice: ChunkChoice | undefined;

  /** The chunk for `raw` when it is the learned event with another content string; undefined otherwise. */
  match(raw: string): ChatChunk | undefined {
    const base = this.base;
    if (base === undefined) return undefined;
    const { prefix, suffix } = this;
    const end = raw.length - suffix.length;
    if (end - prefix.length < 2 || !raw.startsWith(prefix) || !raw.endsWith(suffix)) return undefined;
    const content = stringLiteral(raw, prefix.length, end);
    if (content === undefined) return undefined;
    const choice = this.choice as ChunkChoice;
    chunkReadStats.templated++;
    return { ...base, choices: [{ ...choice, delta: { ...choice.delta, content } }] };
  }

  /** Remembers a parsed chunk as the template when it is a plain content delta whose content string can be found in `raw`. */
  learn(chunk: ChatChunk, raw: string): void {
    if (chunk.choices.length !== 1) return;
    const choice = chunk.choices[0];
    const content = choice.delta.content;
    if (typeof content !== 'string' || !flat(chunk, 'choices') || !flat(choice, 'delta') || !flat(choice.delta, '')) return;
    // One `"content":` in the whole text: inside a string every quote is escaped, so the one found
    // (unescaped) is a key, and the only object with that key here is the delta.
    const at = raw.indexOf(KEY);
    if (at < 0 || raw.indexOf(KEY, at + 1) >= 0 || (at > 0 && raw[at - 1] === '\\')) return;
    let start = at + KEY.length;
    while (raw[start] === ' ' || raw[start] === '\t' || raw[start] === '\n' || raw[start] === '\r') start++;
    const end = literalEnd(raw, start);
    if (end === undefined || stringLiteral(raw, start, end) !== content) return;
    this.prefix = raw.slice(0, start);
    this.suffix = raw.slice(end);
    this.base = chunk;
    this.choice = choice;
  }
}

/** Every value of `object` but the one under `except` is a string, number, boolean or null (nothing shared between built chunks). */
function flat(object: object, except: string): boolean {
  for (const key in object) {
    if (key === except) continue;
    const value = (object as Record<string, unknown>)[key];
    if (value !== null && typeof value === 'object') return false;
  }
  return true;
}

/** The end (exclusive) of the JSON string literal starting at `start`, or undefined. */
function literalEnd(text: string, start: number): number | undefined {
  if (text[start] !== '"') return undefined;
  for (let i = start + 1; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 92 /* \ */) i++;
    else if (ch === 34 /* " */) return i + 1;
  }
  return undefined;
}

/** The value of text[start, end) when it is exactly one JSON string literal; undefined otherwise. */
function stringLiteral(text: string, start: number, end: number): string | undefined {
  if (text.charCodeAt(start) !== 34 || text.charCodeAt(end - 1) !== 34 || end - start < 2) return undefined;
  if (plain(text, start + 1, end - 1)) return text.slice(start + 1, end - 1);
  // Escapes (or a stray quote or control character): JSON.parse decides, on the literal alone.
  try {
    const value: unknown = JSON.parse(text.slice(start, end));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** No quote, backslash or control character in text[from, to): the characters are the string's value. */
function plain(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const ch = text.charCodeAt(i);
    if (ch < 32 || ch === 34 || ch === 92) return false;
  }
  return true;
}
