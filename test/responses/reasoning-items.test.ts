import t from 'tap';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { currentTurnCallIds, reasoningRecordOf, restoreReasoningItems } from '../../src/responses/reasoning-items.js';

const rs = (id: string, encrypted?: string) => ({ id, type: 'reasoning', summary: [], ...(encrypted ? { encrypted_content: encrypted } : {}) });
const fc = (callId: string) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name: 'lookup', arguments: '{}' });
const out = (callId: string) => ({ type: 'function_call_output', call_id: callId, output: 'ok' });
const user = (text: string) => ({ type: 'message', role: 'user', content: text });

function ledgerOf(output: any[]): Map<string, LedgerEntry> {
  const record = reasoningRecordOf(output)!;
  const entry: LedgerEntry = { ...record, prefixFingerprint: '', provider: 'oa', model: 'm', createdAt: 0 };
  return new Map((record.message.tool_calls ?? []).map((call) => [call.id, entry]));
}

t.test('an answer is recorded per call with the encrypted reasoning before it; nothing without encrypted content', async (t) => {
  const record = reasoningRecordOf([rs('rs_1', 'enc1'), fc('a'), fc('b')] as any)!;
  t.same(record.message.tool_calls?.map((c) => c.id), ['a', 'b']);
  t.same(JSON.parse(record.callMeta.a.responsesReasoning), [rs('rs_1', 'enc1')]);
  t.equal(reasoningRecordOf([rs('rs_1'), fc('a')] as any), undefined, 'an id alone is useless without a store');
});

t.test('dropped items are inserted before the first call of their answer, once; ids get their encrypted_content; input untouched', async (t) => {
  const ledger = new Map([...ledgerOf([rs('rs_1', 'enc1'), fc('a'), fc('b')]), ...ledgerOf([rs('rs_2', 'enc2'), fc('c')])]);
  const items: any[] = [user('go'), fc('a'), fc('b'), out('a'), out('b'), rs('rs_2'), fc('c'), out('c')];
  Object.freeze(items);
  t.same(currentTurnCallIds(items), ['a', 'b', 'c']);
  const restored = restoreReasoningItems(items, ledger);
  t.same(restored.items.map((item: any) => `${item.type}:${item.id ?? item.call_id}:${item.encrypted_content ?? ''}`), [
    'message:undefined:', 'reasoning:rs_1:enc1', 'function_call:fc_a:', 'function_call:fc_b:', 'function_call_output:a:', 'function_call_output:b:', 'reasoning:rs_2:enc2', 'function_call:fc_c:', 'function_call_output:c:',
  ]);
  t.equal(restored.findings.length, 2);
  t.equal(items.length, 8);
});

t.test('earlier turns and items the client kept whole are left as sent', async (t) => {
  const ledger = new Map([...ledgerOf([rs('rs_1', 'enc1'), fc('a')]), ...ledgerOf([rs('rs_2', 'enc2'), fc('b')])]);
  const items: any[] = [user('one'), fc('a'), out('a'), user('two'), rs('rs_2', 'enc2'), fc('b'), out('b')];
  const restored = restoreReasoningItems(items, ledger);
  t.equal(restored.items, items, 'the same array');
  t.same(restored.findings, []);
});

t.test('a broken ledger value is ignored', async (t) => {
  const entry: LedgerEntry = { message: { role: 'assistant', content: null, tool_calls: [] }, prefixFingerprint: '', provider: 'oa', model: 'm', createdAt: 0, callMeta: { a: { responsesReasoning: '{not json' } } };
  const items: any[] = [user('go'), fc('a'), out('a')];
  t.equal(restoreReasoningItems(items, new Map([['a', entry]])).items, items);
});
