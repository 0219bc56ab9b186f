import type { LedgerEntry } from './types.js';

// How the memory ledger keeps an entry: ONE string, not an object graph. Every tool-calling answer
// is recorded and almost none is ever looked up again, so an entry is written far more often than
// read: a string is one old-generation object (a dozen before: the entry, its message, the calls
// and their functions, a holder, a key array, key strings), copies nothing the caller can still
// change, and gives the garbage collector nothing to scan inside. A hit parses it back (a fresh copy).
//
// Layout: `<mark><head>\n<body>`.
//   mark — '1' when the body holds callMeta, '0' when not: a record whose call ids are already
//          stored merges their callMeta, and an upstream that repeats its call ids across answers
//          (fixed or per-answer ids such as `functions.name:0`) would otherwise parse a whole body
//          on every record to find none;
//   head — JSON array [scope, prefix fingerprint ('' for none), ...distinct call ids]: what the
//          index keys are made of, read alone (a short parse) when the entry leaves the indexes;
//   body — JSON of the entry's other fields (message, provider, model, createdAt, callMeta).
// JSON text never holds a raw line feed (JSON.stringify escapes it inside strings), so the first
// one ends the head.

const HEAD_END = '\n';

export interface StoredHead {
  scope: string;
  prefixFingerprint: string;
  callIds: string[];
}

/** The stored text of an entry recorded in `scope` under these call ids (distinct, in call order). */
export function storeEntry(entry: LedgerEntry, scope: string, callIds: readonly string[]): string {
  return `${markOf(entry)}${storeHead(scope, entry.prefixFingerprint, callIds)}${HEAD_END}${storeBody(entry)}`;
}

/** The same stored entry with a new body (the head, and so its index keys, unchanged). */
export function withBody(text: string, entry: LedgerEntry): string {
  return `${markOf(entry)}${text.slice(1, text.indexOf(HEAD_END))}${HEAD_END}${storeBody(entry)}`;
}

/** The stored entry's callMeta: no parse when it has none. */
export function storedCallMeta(text: string): LedgerEntry['callMeta'] {
  return text.charCodeAt(0) === NO_META ? undefined : readEntry(text).callMeta;
}

const NO_META = '0'.charCodeAt(0);

function markOf(entry: LedgerEntry): string {
  return entry.callMeta === undefined ? '0' : '1';
}

export function readHead(text: string): StoredHead {
  const [scope, prefixFingerprint, ...callIds] = JSON.parse(text.slice(1, text.indexOf(HEAD_END))) as string[];
  return { scope, prefixFingerprint, callIds };
}

/** The entry back, as recorded (a new object each call). */
export function readEntry(text: string): LedgerEntry {
  const end = text.indexOf(HEAD_END);
  const head = JSON.parse(text.slice(1, end)) as string[];
  const entry = JSON.parse(text.slice(end + 1)) as LedgerEntry;
  entry.prefixFingerprint = head[1];
  return entry;
}

function storeHead(scope: string, prefixFingerprint: string, callIds: readonly string[]): string {
  // One call id (the usual answer): no spread.
  if (callIds.length === 1) return JSON.stringify([scope, prefixFingerprint, callIds[0]]);
  return JSON.stringify([scope, prefixFingerprint, ...callIds]);
}

function storeBody(entry: LedgerEntry): string {
  // The fields by name (one shape, V8's fast serializer), without the fingerprint: it is in the
  // head. An undefined callMeta is left out of the JSON.
  const { message, provider, model, createdAt, callMeta } = entry;
  return JSON.stringify({ message, provider, model, createdAt, callMeta });
}
