import { createHmac, randomBytes } from 'node:crypto';

// How a message or Responses item appears in an inspector record. Structure is kept as is
// (roles, types, ids, tool names, the keys of tool-call arguments) so a diff shows what a repair
// changed; text is kept only with `captureContent`, otherwise it becomes its length and a short
// keyed hash (the key is random per process: equal texts match within one gateway, and a hash
// of a short answer cannot be looked up in a table). Every walk is bounded in depth, width and text.

export interface ViewOptions {
  captureContent: boolean;
}

/** Fields whose string values are structure, not content: kept (cut to MAX_NAME). */
const STRUCTURE_KEYS = new Set(['role', 'type', 'id', 'tool_call_id', 'call_id', 'name', 'status', 'finish_reason', 'model']);
const MAX_NAME = 200;
/** Longest text kept with captureContent (per string). */
export const MAX_TEXT = 2_000;
const MAX_DEPTH = 6;
const MAX_ITEMS = 64;
/** Arguments longer than this are not parsed for their keys. */
const MAX_ARGUMENTS_PARSE = 64 * 1024;

const HASH_KEY = randomBytes(32);

/** 8 hex digits of a keyed hash: the same text gives the same tag within this process. */
export function shortHash(text: string): string {
  return createHmac('sha256', HASH_KEY).update(text).digest('hex').slice(0, 8);
}

/** A text as stored: itself (cut) with captureContent, else `‹N chars #hash›`. */
export function textView(text: string, options: ViewOptions): string {
  if (options.captureContent) return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… ‹${text.length} chars›` : text;
  return `‹${text.length} chars #${shortHash(text)}›`;
}

/** Tool-call arguments: the top-level keys always (structure), the text per textView. */
export function argumentsView(raw: string, options: ViewOptions): { keys?: string[]; text: string } {
  let keys: string[] | undefined;
  if (raw.length <= MAX_ARGUMENTS_PARSE) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) keys = Object.keys(parsed).slice(0, MAX_ITEMS).map((key) => key.slice(0, MAX_NAME));
    } catch {
      keys = undefined;
    }
  }
  return { ...(keys ? { keys } : {}), text: textView(raw, options) };
}

/** A message / item as the inspector stores it. */
export function viewOf(value: unknown, options: ViewOptions, key = '', depth = 0): unknown {
  if (typeof value === 'string') {
    if (STRUCTURE_KEYS.has(key)) return value.length > MAX_NAME ? `${value.slice(0, MAX_NAME)}…` : value;
    if (key === 'arguments') return argumentsView(value, options);
    return textView(value, options);
  }
  // A number is content too (a balance, a temperature): hashed like text unless captured.
  if (typeof value === 'number' && !options.captureContent) return `‹number #${shortHash(String(value))}›`;
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? undefined : value;
  if (depth >= MAX_DEPTH) return '‹nested›';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => viewOf(item, options, '', depth + 1));
    if (value.length > MAX_ITEMS) items.push(`‹${value.length - MAX_ITEMS} more›`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const [field, inner] of Object.entries(value)) {
    if (count++ >= MAX_ITEMS) {
      out['‹more›'] = true;
      break;
    }
    out[field.slice(0, MAX_NAME)] = viewOf(inner, options, field, depth + 1);
  }
  return out;
}
