import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Gateway } from '../pipeline/gateway.js';
import { summarizeFindings } from '../repair/index.js';
import type { Prepared } from './prepared.js';
import { mergeRepairHeaders } from '../edge/repair-headers.js';
import { currentTurnCallIds, reasoningRecordOf, restoreReasoningItems } from './reasoning-items.js';
import type { Item, ResponseObject } from '../api/responses-types.js';

// The I/O around reasoning-items.ts for the native /responses path: one ledger lookup before the
// request goes upstream, one ledger write after its answer. Only `store: false` conversations:
// with a store, OpenAI keeps the reasoning items itself.

/** The items to send, with reasoning the client dropped put back, and the repairs header that says so. */
export async function withRestoredReasoning(prepared: Prepared, gateway: Gateway, log: Logger): Promise<{ items: Item[]; repairsHeader?: string }> {
  const unchanged = { items: prepared.items, repairsHeader: prepared.repairsHeader };
  if (prepared.request.store !== false) return unchanged;
  const callIds = currentTurnCallIds(prepared.items);
  if (callIds.length === 0) return unchanged;
  try {
    const snapshot = await gateway.ledger.forScope(prepared.scope).lookup({ callIds, prefixFingerprints: [] });
    const restored = restoreReasoningItems(prepared.items, snapshot.byCallId);
    if (restored.findings.length === 0) return unchanged;
    gateway.metrics.repairs(restored.findings);
    return { items: restored.items, repairsHeader: mergeRepairHeaders(prepared.repairsHeader, summarizeFindings(restored.findings)) };
  } catch (error) {
    log.warn({ err: error }, 'call ledger lookup failed: reasoning items not restored');
    return unchanged;
  }
}

/** Keeps the encrypted reasoning items of a native answer with its calls (store: false only). */
export async function recordReasoningItems(prepared: Prepared, response: ResponseObject, provider: string, gateway: Gateway, log: Logger): Promise<void> {
  if (prepared.request.store !== false) return;
  const record = reasoningRecordOf(response.output);
  if (record === undefined) return;
  try {
    await gateway.ledger.forScope(prepared.scope).record({ ...record, prefixFingerprint: '', provider, model: prepared.request.model, createdAt: Date.now() });
  } catch (error) {
    log.warn({ err: error }, 'call ledger write failed');
  }
}
