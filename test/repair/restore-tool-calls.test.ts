import t from 'tap';
import { allPrefixFingerprints } from '../../src/ledger/fingerprint.js';
import { restoreToolCallsPass } from '../../src/repair/restore-tool-calls.js';
import { assistant, assistantCalls, call, ctx, deepFreeze, entry, kinds, req, snapshot, system, tool, user, strict } from './helpers.js';

const CALLS = [call('call_a', 'get_weather', '{"city":"Paris"}'), call('call_b', 'get_time', '{"tz":"CET"}')];

t.test('empty ledger: same object, no work', async (t) => {
  const request = deepFreeze(req([user('q'), assistant(''), tool(undefined, 'r')]));
  t.equal(restoreToolCallsPass.run(request, ctx()).request, request);
});

t.test('stripped assistant (content "") restored by prefix fingerprint', async (t) => {
  const messages = [system('s'), user('weather and time in Paris?'), assistant(''), tool(undefined, '18C'), tool(undefined, '14:00')];
  const fp = allPrefixFingerprints(messages as never)[2];
  const ledger = snapshot([], { [fp]: entry(CALLS, fp) });
  const out = restoreToolCallsPass.run(deepFreeze(req(messages)), ctx({}, ledger));
  t.same(out.request.messages[2], { role: 'assistant', content: '', tool_calls: CALLS });
  t.not(strict(out.request).messages[2].tool_calls![0], CALLS[0], 'calls are copies, not the ledger objects');
  t.same(kinds(out.findings), ['restored_tool_calls']);
});

t.test('restored by call id when the results kept their ids (text-only assistant)', async (t) => {
  const ledger = snapshot([entry(CALLS, 'other', 'Let me check.')]);
  const out = restoreToolCallsPass.run(req([user('q'), assistant('Let me check.'), tool('call_a', '18C'), tool('call_b', '14:00')]), ctx({}, ledger));
  t.same(out.request.messages[1].tool_calls, CALLS);
});

t.test('a candidate that does not fit is not used (ledger_mismatch, advisory)', async (t) => {
  const messages = [user('q'), assistant('Something else entirely'), tool(undefined, 'r')];
  const fp = allPrefixFingerprints(messages as never)[1];
  const ledger = snapshot([], { [fp]: entry(CALLS, fp, 'Let me check.') });
  const request = req(messages);
  const out = restoreToolCallsPass.run(request, ctx({}, ledger));
  t.equal(out.request, request);
  t.match(out.findings, [{ kind: 'ledger_mismatch', advisory: true, detail: /assistant text differs/ }]);

  const named = req([user('q'), assistant(''), tool(undefined, 'r', { name: 'send_email' })]);
  const fp2 = allPrefixFingerprints(named.messages)[1];
  const out2 = restoreToolCallsPass.run(named, ctx({}, snapshot([], { [fp2]: entry(CALLS, fp2) })));
  t.match(out2.findings, [{ kind: 'ledger_mismatch', detail: /send_email/ }]);
});

t.test('calls already elsewhere in the history are not restored twice', async (t) => {
  const messages = [user('q'), assistantCalls(...CALLS), tool('call_a', 'x'), tool('call_b', 'y'), assistant(''), tool(undefined, 'z')];
  const fp = allPrefixFingerprints(messages as never)[4];
  const out = restoreToolCallsPass.run(req(messages), ctx({}, snapshot([], { [fp]: entry(CALLS, fp) })));
  t.equal(out.request.messages[4].tool_calls, undefined);
});

t.test('dropped parallel calls restored when the ledger message contains the ones present', async (t) => {
  const ledger = snapshot([entry(CALLS)]);
  const out = restoreToolCallsPass.run(req([user('q'), assistantCalls(CALLS[0]), tool('call_a', '18C'), tool('call_b', '14:00')]), ctx({}, ledger));
  t.same(out.request.messages[1].tool_calls, CALLS);
});

t.test('an assistant message missing entirely is re-inserted before its results', async (t) => {
  const ledger = snapshot([entry(CALLS, 'fp', 'Checking.')]);
  const out = restoreToolCallsPass.run(deepFreeze(req([user('q'), tool('call_a', '18C'), tool('call_b', '14:00')])), ctx({}, ledger));
  t.same(out.request.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'tool']);
  t.same(out.request.messages[1], { role: 'assistant', content: 'Checking.', tool_calls: CALLS });
  t.same(kinds(out.findings), ['restored_assistant_message']);
});
