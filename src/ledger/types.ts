import type { AssistantMessage } from '../api/chat-types.js';
import type { StoreStats } from '../util/budget.js';

// What the gateway remembers about an assistant message it returned.
export interface LedgerEntry {
  /** The assistant message exactly as the client received it (tool_calls with ids, names, arguments). */
  message: AssistantMessage;
  /** Fingerprint of the conversation prefix that produced it (see fingerprint.ts). */
  prefixFingerprint: string;
  provider: string;
  model: string;
  createdAt: number;
  /** Provider-specific opaque data per tool call id (e.g. Gemini thought signatures, upstream ids). */
  callMeta?: Record<string, Record<string, string>>;
}

/** A read-only view of the ledger fetched before the (pure) repair passes run. */
export interface LedgerSnapshot {
  byCallId: ReadonlyMap<string, LedgerEntry>;
  byPrefix: ReadonlyMap<string, LedgerEntry>;
}

export interface LedgerQuery {
  callIds: string[];
  prefixFingerprints: string[];
}

/**
 * Storage seam: memory (a byte ring off the V8 heap, TTL + byte budget) by default; Redis implements the same.
 * A ledger object is a view of one tenant scope (see src/util/scope.ts): record and lookup
 * see only that scope's entries; the gateway's own object is the anonymous scope, and
 * `forScope` gives the view of a gateway key over the same storage.
 */
export interface CallLedger {
  record(entry: LedgerEntry): Promise<void>;
  lookup(query: LedgerQuery): Promise<LedgerSnapshot>;
  /** The same storage as the gateway key with this scope id sees it. */
  forScope(scope: string): CallLedger;
  /** Size of the whole storage, every scope (for /metrics). */
  stats?(): StoreStats;
  close?(): Promise<void>;
}

export const EMPTY_SNAPSHOT: LedgerSnapshot = { byCallId: new Map(), byPrefix: new Map() };
