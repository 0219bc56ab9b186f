import type { AssistantMessage, ChatMessage } from '../../api/chat-types.js';
import type { CallLedger } from '../../ledger/types.js';
import type { CallMeta } from './messages.js';
import type { CallMetaMap } from './response.js';

// Thought signatures (and Gemini's own call ids) live in the call ledger, keyed by the tool call
// id toolgate issued: the adapter records them when an answer carries them and looks them up
// when those calls come back in history. A ledger failure never fails the request: the call
// goes out with Gemini's documented "skip validator" value instead.

const MAX_LOOKUP = 512;

type Warn = (message: string, detail: Record<string, unknown>) => void;

export async function lookupCallMeta(ledger: CallLedger, messages: ChatMessage[], warn: Warn): Promise<(callId: string) => CallMeta | undefined> {
  const ids = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])).slice(-MAX_LOOKUP);
  if (ids.length === 0) return () => undefined;
  try {
    const snapshot = await ledger.lookup({ callIds: ids, prefixFingerprints: [] });
    return (callId) => {
      const meta = snapshot.byCallId.get(callId)?.callMeta?.[callId];
      return meta ? { thoughtSignature: meta.thoughtSignature, upstreamId: meta.upstreamId } : undefined;
    };
  } catch (error) {
    warn('gemini: call ledger lookup failed; unknown signatures fall back to the skip value', { error: String(error) });
    return () => undefined;
  }
}

export interface RecordInput {
  messages: AssistantMessage[];
  callMeta: CallMetaMap;
  provider: string;
  model: string;
}

/**
 * One entry per assistant message that carries call metadata. prefixFingerprint stays empty:
 * this entry is only for lookups by call id; the pipeline records the conversation itself.
 */
export async function recordCallMeta(ledger: CallLedger, input: RecordInput, warn: Warn): Promise<void> {
  for (const message of input.messages) {
    const callMeta: CallMetaMap = {};
    for (const call of message.tool_calls ?? []) if (input.callMeta[call.id]) callMeta[call.id] = input.callMeta[call.id];
    if (Object.keys(callMeta).length === 0) continue;
    try {
      await ledger.record({ message, prefixFingerprint: '', provider: input.provider, model: input.model, createdAt: Date.now(), callMeta });
    } catch (error) {
      warn('gemini: could not record thought signatures in the call ledger', { error: String(error) });
    }
  }
}
