import type { LedgerEntry } from './types.js';

// How the memory ledger keeps an entry: ONE text, not an object graph, written as bytes into the
// ledger's ring (byte-ring.ts) outside the V8 heap. Every tool-calling answer is recorded and almost
// none is ever looked up again, so an entry is written far more often than read: the text copies
// nothing the caller can still change, and the string dies young once its bytes are in the ring.
// A hit decodes and parses it back (a fresh copy); a key's hash is verified against the head.
//
// Layout: `<mark><head>\n<body>`.
//   mark — one of '0'..'3': bit 1 when the body holds callMeta (a record whose call ids are already
//          stored merges their callMeta, and an upstream that repeats its call ids across answers
//          (fixed or per-answer ids such as `functions.name:0`) would otherwise parse a whole body
//          on every record to find none); bit 2 when the head is JSON;
//   head — the scope, the prefix fingerprint ('' for none) and the distinct call ids: what the
//          index keys are made of, read alone when the entry leaves the indexes (every eviction)
//          or loses a key. Joined by US (\u001f) when no field holds US or a line feed (the usual
//          ids: half the cost of a JSON array to write and to read), else a JSON array;
//   body — JSON of the entry's other fields (message, provider, model, createdAt, callMeta).
// JSON text never holds a raw line feed (JSON.stringify escapes it inside strings), so the first
// one ends the head.

const HEAD_END = '\n';

/** The stored text of an entry recorded in `scope` under these call ids (distinct, in call order). */
export function storeEntry(entry: LedgerEntry, scope: string, callIds: readonly string[]): string {
  const plain = isPlain(scope) && isPlain(entry.prefixFingerprint) && callIds.every(isPlain);
  const head = plain ? joinHead(scope, entry.prefixFingerprint, callIds) : JSON.stringify([scope, entry.prefixFingerprint, ...callIds]);
  return `${markOf(entry, plain)}${head}${HEAD_END}${storeBody(entry)}`;
}

/** The same stored entry with a new body (the head, and so its index keys, unchanged). */
export function withBody(text: string, entry: LedgerEntry): string {
  return `${markOf(entry, hasPlainHead(text))}${text.slice(1, text.indexOf(HEAD_END))}${HEAD_END}${storeBody(entry)}`;
}

/** Whether a stored entry whose first character (its mark) is `mark` holds callMeta. */
export function markHasMeta(mark: number): boolean {
  return (mark & HAS_META) !== 0;
}

/** The stored entry's callMeta: no parse when it has none. */
export function storedCallMeta(text: string): LedgerEntry['callMeta'] {
  return (text.charCodeAt(0) & HAS_META) === 0 ? undefined : readEntry(text).callMeta;
}

// Mark bits ('0' is 0x30: the low bits are free).
const HAS_META = 1;
const JSON_HEAD = 2;
const SEPARATOR = '\u001f';

function markOf(entry: LedgerEntry, plainHead: boolean): string {
  return String.fromCharCode(0x30 | (entry.callMeta === undefined ? 0 : HAS_META) | (plainHead ? 0 : JSON_HEAD));
}

function isPlain(field: string): boolean {
  return !field.includes(SEPARATOR) && !field.includes(HEAD_END);
}

function joinHead(scope: string, prefixFingerprint: string, callIds: readonly string[]): string {
  // One or two call ids (the usual answers): one template, no array.
  if (callIds.length === 1) return `${scope}${SEPARATOR}${prefixFingerprint}${SEPARATOR}${callIds[0]}`;
  if (callIds.length === 2) return `${scope}${SEPARATOR}${prefixFingerprint}${SEPARATOR}${callIds[0]}${SEPARATOR}${callIds[1]}`;
  return [scope, prefixFingerprint, ...callIds].join(SEPARATOR);
}

/** The head's fields: [scope, prefix fingerprint ('' for none), ...distinct call ids]. */
export function readHead(text: string): string[] {
  const end = text.indexOf(HEAD_END);
  if (!hasPlainHead(text)) return JSON.parse(text.slice(1, end)) as string[];
  // Field by field off the text (half the cost of slicing the head, then splitting it).
  const fields: string[] = [];
  let from = 1;
  for (let at = text.indexOf(SEPARATOR, from); at !== -1 && at < end; at = text.indexOf(SEPARATOR, from)) {
    fields.push(text.slice(from, at));
    from = at + 1;
  }
  fields.push(text.slice(from, end));
  return fields;
}

/** Whether the head is the fields as they are (joined), not JSON (which escapes lone surrogates). */
export function hasPlainHead(text: string): boolean {
  return (text.charCodeAt(0) & JSON_HEAD) === 0;
}

/** The entry back, as recorded (a new object each call). */
export function readEntry(text: string): LedgerEntry {
  const entry = JSON.parse(text.slice(text.indexOf(HEAD_END) + 1)) as LedgerEntry;
  entry.prefixFingerprint = readHead(text)[1];
  return entry;
}

function storeBody(entry: LedgerEntry): string {
  // The fields by name (one shape, V8's fast serializer), without the fingerprint: it is in the
  // head. An undefined callMeta is left out of the JSON.
  const { message, provider, model, createdAt, callMeta } = entry;
  return JSON.stringify({ message, provider, model, createdAt, callMeta });
}
