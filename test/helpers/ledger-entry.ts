import type { LedgerEntry } from '../../src/ledger/types.js';

export interface LedgerEntryOptions {
  /** Each call's arguments: one text for all, or made from the call's id. Default '{}'. */
  args?: string | ((id: string) => string);
  /** Default 0. */
  createdAt?: number;
}

/** A tool-calling answer as the pipeline records it: one call to `f` per id, under the prefix fingerprint `fp`. */
export function ledgerEntry(fp: string, ids: readonly string[], options: LedgerEntryOptions = {}): LedgerEntry {
  const { args = '{}', createdAt = 0 } = options;
  return {
    message: { role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: typeof args === 'string' ? args : args(id) } })) },
    prefixFingerprint: fp,
    provider: 'p',
    model: 'm',
    createdAt,
  };
}
