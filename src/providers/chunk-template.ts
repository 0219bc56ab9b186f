import type { ChatChunk } from '../api/chat-types.js';

// Most events of a stream are the same bytes but for one string: the content token, or the next
// fragment of a tool call's arguments. Once one such event was parsed, the next ones are recognized
// from their raw text — the same text before and after that string, one well-formed JSON string
// between — and their chunk is built from the parsed one with the new string, without parsing or
// checking the event again. The chunk built equals what JSON.parse would have returned (same keys,
// same order, same values), so everything downstream (normalization of calls and text calls,
// metrics, the recorder, byte-for-byte relay) does exactly what it does for a parsed event.
// Anything else (a call's first delta, finish, usage, another shape, an escape the quick check
// does not take) is parsed and checked as before.

/** A learned event: its text before and after the one string that changes, and how to rebuild the chunk around a new value. */
interface Template {
  prefix: string;
  suffix: string;
  rebuild: (value: string) => ChatChunk;
}

/** Per stream: one template for content deltas, one for tool-call argument fragments. */
export class ChunkTemplates {
  private content: Template | undefined;
  private args: Template | undefined;

  /** The chunk for `raw` when it is a learned event with another string in its slot; undefined otherwise. */
  match(raw: string): ChatChunk | undefined {
    return (this.content && fill(this.content, raw)) ?? (this.args && fill(this.args, raw));
  }

  /** Remembers a parsed chunk as a template when it is a single content delta or a single argument fragment whose string can be found in `raw`. */
  learn(parsed: ChatChunk, raw: string): void {
    if (parsed.choices.length !== 1 || !flat(parsed, 'choices') || !flat(parsed.choices[0], 'delta')) return;
    const delta = parsed.choices[0].delta;
    const calls = delta.tool_calls;
    // The slot is found before anything is copied: most parsed events (a role, a call's first
    // delta, finish, usage) teach nothing. Nor does an empty string: it is what the events that
    // come once carry (the opening role event's content, a call's first delta with its id and
    // name), so a template from them was built per stream and never matched.
    if (calls === undefined || calls === null) {
      if (typeof delta.content !== 'string' || delta.content === '' || !flat(delta, '')) return;
      const slot = locate(raw, '"content":', delta.content);
      if (slot === undefined) return;
      // Copies: the parsed chunk goes on to the client's side, where it may be changed (usage removed).
      const chunk = { ...parsed };
      const choice = { ...parsed.choices[0] };
      const copy = { ...delta };
      this.content = template(raw, slot, (content) => copyWith(chunk, 'choices', [copyWith(choice, 'delta', copyWith(copy, 'content', content))]));
      return;
    }
    if (!Array.isArray(calls) || calls.length !== 1 || !flat(delta, 'tool_calls')) return;
    const fn0 = calls[0].function;
    if (!flat(calls[0], 'function') || fn0 === undefined || typeof fn0.arguments !== 'string' || fn0.arguments === '' || !flat(fn0, '')) return;
    const slot = locate(raw, '"arguments":', fn0.arguments);
    if (slot === undefined) return;
    const chunk = { ...parsed };
    const choice = { ...parsed.choices[0] };
    const copy = { ...delta };
    const call = { ...calls[0] };
    const fn = { ...fn0 };
    this.args = template(raw, slot, (value) =>
      copyWith(chunk, 'choices', [copyWith(choice, 'delta', copyWith(copy, 'tool_calls', [copyWith(call, 'function', copyWith(fn, 'arguments', value))]))]),
    );
  }
}

function fill(template: Template, raw: string): ChatChunk | undefined {
  const { prefix, suffix } = template;
  const end = raw.length - suffix.length;
  // slice + === compares as a block: several times faster than startsWith/endsWith here.
  if (end - prefix.length < 2 || raw.slice(0, prefix.length) !== prefix || raw.slice(end) !== suffix) return undefined;
  const value = stringLiteral(raw, prefix.length, end);
  return value === undefined ? undefined : template.rebuild(value);
}

/**
 * Where `value` sits in `raw` ([start, end) of its literal), as the string after the one `key` in
 * the whole text: inside a JSON string every quote is escaped, so an unescaped `"key":` is a key,
 * and the flat-checked chunk has that key in one object only. Undefined when the key occurs twice
 * or the string found differs.
 */
function locate(raw: string, key: string, value: string): [number, number] | undefined {
  const at = raw.indexOf(key);
  if (at < 0 || raw.indexOf(key, at + 1) >= 0 || (at > 0 && raw[at - 1] === '\\')) return undefined;
  let start = at + key.length;
  while (raw[start] === ' ' || raw[start] === '\t' || raw[start] === '\n' || raw[start] === '\r') start++;
  const end = literalEnd(raw, start);
  if (end === undefined || stringLiteral(raw, start, end) !== value) return undefined;
  return [start, end];
}

function template(raw: string, [start, end]: [number, number], rebuild: (value: string) => ChatChunk): Template {
  return { prefix: detached(raw.slice(0, start)), suffix: detached(raw.slice(end)), rebuild };
}

/** V8's shortest sliced string (SlicedString::kMinLength): a shorter slice is a copy already. */
const SLICE_MIN = 13;

/**
 * `text` with storage of its own. A slice of a string points into its parent in V8, and `raw` is a
 * slice of the whole network read it came in: a template kept for the rest of the stream kept that
 * whole read (a burst of events: kilobytes per stream). Flattening a new concatenation copies.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
}

/**
 * A copy of `source` (same keys, same order) with `key` set to `value`, built key by key: such an
 * object takes V8's usual map transitions, so the raw text is attached to it cheaply (Node 20 adds a
 * property to a spread copy through its slow path, ~1.5 µs per event).
 */
function copyWith<T extends object>(source: T, key: string, value: unknown): T {
  const copy: Record<string, unknown> = {};
  for (const name in source) copy[name] = name === key ? value : (source as Record<string, unknown>)[name];
  return copy as T;
}

/**
 * Every value of `object` but the one under `except` is a string, number, boolean or null (nothing
 * shared between built chunks), and no key is `__proto__` (copyWith would set the prototype).
 */
function flat(object: object, except: string): boolean {
  for (const key in object) {
    if (key === '__proto__') return false;
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
  // A copy, not a slice of the read: the stream's recorder keeps every content string it is given
  // (V8 copies strings shorter than SLICE_MIN itself).
  if (plain(text, start + 1, end - 1)) return end - start - 2 < SLICE_MIN ? text.slice(start + 1, end - 1) : detached(text.slice(start + 1, end - 1));
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
