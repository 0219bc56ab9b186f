import { createHash, randomBytes } from 'node:crypto';

// Tool-call ids. Clients send them back with the results, so the ids of one answer must be
// distinct and not reused across turns or conversations — upstreams that give none, repeat one, or
// number them (`0`, `call_0`, Kimi K2's `functions.get_weather:0`) get fresh ones. Upstreams with id rules (Mistral: exactly 9 alphanumerics) get
// a deterministic hash of the client's id, so the mapping can be recomputed anywhere.

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;
/** Ids that are placeholders rather than identifiers: empty, bare counters, `call_0`, `tool_call_1`. */
const PLACEHOLDER_ID = /^(?:(?:call|tool_call|toolcall|tool|fc|function)[_-]?)?\d{0,4}$/i;
/**
 * A tool name and a counter: Kimi K2 as vLLM and SGLang parse it names its calls
 * `functions.get_weather:0` in every conversation. No `:` inside the name part, so one way to match.
 */
const NAME_COUNTER_ID = /^[A-Za-z_][\w.\-/]{0,255}:\d{1,6}$/;
/** Longer ids are never placeholders (and are not matched at all). */
const MAX_PLACEHOLDER_LENGTH = 300;

export const MISTRAL_TOOL_CALL_ID_PATTERN = /^[a-zA-Z0-9]{9}$/;

/** `call_` + 24 random alphanumerics. */
export function newToolCallId(): string {
  let id = 'call_';
  while (id.length < 5 + ID_LENGTH) {
    // Bytes ≥ 248 (= 4 × 62) are skipped so every character is equally likely.
    for (const byte of randomBytes(ID_LENGTH + 8)) {
      if (byte < 248 && id.length < 5 + ID_LENGTH) id += ALPHANUMERIC[byte % 62];
    }
  }
  return id;
}

/** An id that says nothing of its call beyond a position: the same in every conversation, so not kept. */
export function isPlaceholderId(id: unknown): boolean {
  if (typeof id !== 'string') return true;
  const text = id.trim();
  return text.length <= MAX_PLACEHOLDER_LENGTH && (PLACEHOLDER_ID.test(text) || NAME_COUNTER_ID.test(text));
}

/**
 * Gives every call a usable, distinct id: missing or placeholder ids and repeats get a new one.
 * Returns the same array when nothing changed (and the number of ids replaced).
 */
export function ensureUniqueToolCallIds<T extends { id?: unknown }>(calls: readonly T[]): { calls: T[]; replaced: number } {
  const seen = new Set<string>();
  let replaced = 0;
  let out: T[] | undefined;
  calls.forEach((call, index) => {
    const id = call.id;
    if (typeof id === 'string' && !isPlaceholderId(id) && !seen.has(id)) {
      seen.add(id);
      return;
    }
    out ??= calls.slice();
    const fresh = newToolCallId();
    seen.add(fresh);
    out[index] = { ...call, id: fresh };
    replaced++;
  });
  return { calls: out ?? (calls as T[]), replaced };
}

/** Tracks ids across a stream's chunks: the same decisions as ensureUniqueToolCallIds, one id at a time. */
export class ToolCallIdFixer {
  private readonly seen = new Set<string>();

  /** The id to send for a call whose upstream id is `id` (undefined when the upstream gave none). */
  fix(id: unknown): string {
    if (typeof id === 'string' && !isPlaceholderId(id) && !this.seen.has(id)) {
      this.seen.add(id);
      return id;
    }
    const fresh = newToolCallId();
    this.seen.add(fresh);
    return fresh;
  }
}

/**
 * The id to send to an upstream whose ids must match `pattern`: the id itself when it does,
 * otherwise a hash of it in base 62, 9 characters first (Mistral), then longer forms.
 */
export function toUpstreamId(id: string, pattern: RegExp): string {
  if (pattern.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  const base62 = toBase62(digest);
  for (const length of [9, 8, 10, 12, 16, 24, 32]) {
    const candidate = base62.slice(0, length);
    if (pattern.test(candidate)) return candidate;
    if (pattern.test(`call_${candidate}`)) return `call_${candidate}`;
  }
  return id;
}

function toBase62(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (out.length < 43) {
    out += ALPHANUMERIC[Number(value % 62n)];
    value /= 62n;
  }
  return out;
}
