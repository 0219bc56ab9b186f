import t from 'tap';
import type { RawChatMessage } from '../../src/api/chat-types.js';
import { ofThisConversation } from '../../src/ledger/conversation.js';
import { prefixFingerprint } from '../../src/ledger/fingerprint.js';
import type { LedgerEntry, LedgerSnapshot } from '../../src/ledger/types.js';

// Entries found by call id are kept only when their recorded conversation is this one's history.

const entry = (prefix: string): LedgerEntry => ({ message: { role: 'assistant', content: null }, prefixFingerprint: prefix, provider: 'p', model: 'm', createdAt: 0 });

t.test('only entries answered to a prefix of this history are kept', async (t) => {
  const messages: RawChatMessage[] = [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: null, tool_calls: [] },
    { role: 'tool', tool_call_id: 'a', content: 'r' },
    { role: 'tool', tool_call_id: 'b', content: 'r' },
    { role: 'user', content: 'second' },
    { role: 'tool', tool_call_id: 'c', content: 'r' },
  ];
  const mine = entry(prefixFingerprint(messages, 1, 'key'));
  const droppedAssistant = entry(prefixFingerprint(messages, 5, 'key'));
  const other = entry(prefixFingerprint([{ role: 'user', content: 'another' }], 1, 'key'));
  const otherKey = entry(prefixFingerprint(messages, 1, 'other-key'));
  const byPrefix = new Map([['x', other]]);
  const snapshot: LedgerSnapshot = { byCallId: new Map([['a', mine], ['z', other], ['c', droppedAssistant], ['k', otherKey]]), byPrefix };
  const kept = ofThisConversation(snapshot, messages, 'key');
  t.same([...kept.byCallId.keys()], ['a', 'c']);
  t.equal(kept.byPrefix, byPrefix, 'entries by prefix are left alone');
  const all: LedgerSnapshot = { byCallId: new Map([['a', mine]]), byPrefix };
  t.equal(ofThisConversation(all, messages, 'key'), all, 'nothing dropped: the same snapshot');
});
