import t from 'tap';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { restoreReasoningPass } from '../../src/repair/restore-reasoning.js';
import { assistantCalls, call, ctx, deepFreeze, entry, kinds, req, snapshot, tool, user } from './helpers.js';

const A = call('call_a', 'lookup', '{"q":"a"}');
const B = call('call_b', 'lookup', '{"q":"b"}');
const C = call('call_c', 'lookup', '{"q":"c"}');

function thought(calls = [A], reasoning = 'I should look up a.', callMeta?: LedgerEntry['callMeta']): LedgerEntry {
  const recorded = entry(calls);
  recorded.message.reasoning_content = reasoning;
  if (callMeta) recorded.callMeta = callMeta;
  return recorded;
}

const on = (ledger = snapshot([thought()])) => ({ ...ctx({}, ledger), restoreReasoning: true });

t.test('the current turn gets its reasoning back, exactly as recorded; the input is untouched', async (t) => {
  const request = deepFreeze(req([user('q'), assistantCalls(A), tool('call_a', 'r')]));
  const out = restoreReasoningPass.run(request, on());
  t.equal(out.request.messages[1].reasoning_content, 'I should look up a.');
  t.same(out.request.messages[1].tool_calls, [A]);
  t.same(kinds(out.findings), ['reasoning_restored']);
  t.equal(request.messages[1].reasoning_content, undefined);
});

t.test('nothing is done for a target that does not need it, or with an empty ledger', async (t) => {
  const request = req([user('q'), assistantCalls(A), tool('call_a', 'r')]);
  t.equal(restoreReasoningPass.run(request, ctx({}, snapshot([thought()]))).request, request);
  t.equal(restoreReasoningPass.run(request, on(snapshot([]))).request, request);
});

t.test('earlier turns stay as sent; reasoning the client kept is never replaced', async (t) => {
  const ledger = snapshot([thought([A], 'old'), thought([B], 'new'), thought([C], 'recorded')]);
  const kept = { ...assistantCalls(C), reasoning_content: 'client own' };
  const request = req([user('q1'), assistantCalls(A), tool('call_a', 'r'), user('q2'), assistantCalls(B), tool('call_b', 'r'), kept, tool('call_c', 'r')]);
  const out = restoreReasoningPass.run(request, on(ledger));
  t.equal(out.request.messages[1].reasoning_content, undefined, 'previous turn');
  t.equal(out.request.messages[4].reasoning_content, 'new');
  t.equal(out.request.messages[6].reasoning_content, 'client own');
  t.equal(out.findings.length, 1);
});

t.test('a message whose calls came from different answers (or unknown ones) is left alone', async (t) => {
  const ledger = snapshot([thought([A], 'for a'), thought([B], 'for b')]);
  const mixed = req([user('q'), assistantCalls(A, B), tool('call_a', 'r'), tool('call_b', 'r')]);
  t.equal(restoreReasoningPass.run(mixed, on(ledger)).request, mixed);
  const unknown = req([user('q'), assistantCalls(A, C), tool('call_a', 'r'), tool('call_c', 'r')]);
  t.equal(restoreReasoningPass.run(unknown, on(snapshot([thought([A])]))).request, unknown);
});

t.test('thought signatures go back on their calls (from callMeta or the recorded call), other extra content kept', async (t) => {
  const signedB = { ...B, extra_content: { google: { thought_signature: 'sig-b' } } };
  const ledger = snapshot([thought([A, signedB], '', { call_a: { thoughtSignature: 'sig-a' } })]);
  const sentA = { ...A, extra_content: { other: 1 } };
  const out = restoreReasoningPass.run(req([user('q'), assistantCalls(sentA, B), tool('call_a', 'r'), tool('call_b', 'r')]), on(ledger));
  t.same(out.request.messages[1].tool_calls, [
    { ...A, extra_content: { other: 1, google: { thought_signature: 'sig-a' } } },
    { ...B, extra_content: { google: { thought_signature: 'sig-b' } } },
  ]);
  t.equal(out.request.messages[1].reasoning_content, undefined, 'no text was recorded');
  t.match(out.findings[0].detail, /2 thought signature/);
});

t.test('linear: one pass over the messages, one map lookup per call', async (t) => {
  const calls = Array.from({ length: 2000 }, (_, i) => call(`call_${i}`, 'lookup'));
  const messages = [user('q'), ...calls.flatMap((c) => [assistantCalls(c), tool(c.id, 'r')])];
  const entries = calls.map((c) => thought([c], `r${c.id}`));
  let lookups = 0;
  const ledger = snapshot(entries);
  const counting = new Proxy(ledger.byCallId, {
    get(target, key) {
      if (key === 'get') return (id: string) => (lookups++, target.get(id));
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const out = restoreReasoningPass.run(req(messages), { ...on(), ledger: { byCallId: counting, byPrefix: ledger.byPrefix } });
  t.equal(out.findings.length, 2000);
  t.equal(lookups, 2000);
});
