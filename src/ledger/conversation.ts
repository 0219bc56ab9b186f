import type { RawChatMessage } from '../api/chat-types.js';
import { prefixFingerprintsAt } from './fingerprint.js';
import type { LedgerEntry, LedgerSnapshot } from './types.js';

// What the ledger restores belongs to this conversation. A call id alone does not say which
// conversation a call was answered in: counter-style ids (`functions.get_weather:0`, `call_0`) are
// the same in every one, and a client may reuse ids it saw elsewhere. So an entry found by call id
// is used only when the conversation it answered is this one's history: its recorded prefix
// fingerprint (the client's messages the answer was given to) is the fingerprint of this
// request's messages before some assistant message or block of tool results — where that answer
// sits, or sat before the client dropped it. Entries by prefix fingerprint are this
// conversation's by construction.

/** Where an answer can sit in `messages`: before each assistant message and each run of tool results. */
function answerPositions(messages: readonly RawChatMessage[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const role = messages[i].role;
    if (role === 'assistant') out.push(i);
    else if ((role === 'tool' || role === 'function') && (i === 0 || (messages[i - 1].role !== 'tool' && messages[i - 1].role !== 'function'))) out.push(i);
  }
  return out;
}

/**
 * The snapshot with only the call-id entries answered in this conversation (`scope`: the same
 * value the entries were recorded and the query made with). The same snapshot when all are.
 */
export function ofThisConversation(snapshot: LedgerSnapshot, messages: readonly RawChatMessage[], scope?: string): LedgerSnapshot {
  if (snapshot.byCallId.size === 0) return snapshot;
  const prefixes = new Set(prefixFingerprintsAt(messages, answerPositions(messages), scope));
  let kept: Map<string, LedgerEntry> | undefined;
  for (const [id, entry] of snapshot.byCallId) {
    if (prefixes.has(entry.prefixFingerprint)) {
      kept?.set(id, entry);
      continue;
    }
    if (kept === undefined) {
      kept = new Map();
      for (const [earlier, earlierEntry] of snapshot.byCallId) {
        if (earlier === id) break;
        kept.set(earlier, earlierEntry);
      }
    }
  }
  return kept === undefined ? snapshot : { byCallId: kept, byPrefix: snapshot.byPrefix };
}
