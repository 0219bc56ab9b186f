import t from 'tap';
import { providerContext } from '../../src/pipeline/provider-context.js';
import { newRequestInfo } from '../../src/pipeline/request-info.js';
import { startReliableGateway } from '../helpers/reliable-gateway.js';

// Providers (Gemini thought signatures and upstream call ids) read and write the call ledger
// through their call context: it is the caller's scope, so one key never gets another key's
// signatures or ids for a call id it happens to send (issue 14 §3).

t.test("a provider context's ledger is the calling key's scope", async (t) => {
  const gw = await startReliableGateway(`providers:\n  simulator: {type: simulator}\nauth:\n  keys:\n    - {key: tg-alpha-key-0001, name: alpha}\n    - {key: tg-beta-key-00002, name: beta}\n`);
  t.teardown(() => gw.close());
  const target = gw.gateway.router.resolve('simulator/weather');
  const infoOf = (keyName: string) => {
    const info = newRequestInfo('chat_completions');
    info.authenticated(keyName);
    return info;
  };
  const contextOf = (keyName: string) =>
    providerContext(target, { requestId: 'r', headers: {}, signal: new AbortController().signal, log: gw.app.log, info: infoOf(keyName) }, gw.gateway);
  const call = { id: 'call_sig', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } };
  await contextOf('alpha').ledger.record({ message: { role: 'assistant', content: null, tool_calls: [call] }, prefixFingerprint: '', provider: 'gemini', model: 'g', createdAt: 1, callMeta: { call_sig: { thoughtSignature: 'ALPHA-SIG' } } });
  const beta = await contextOf('beta').ledger.lookup({ callIds: ['call_sig'], prefixFingerprints: [] });
  t.equal(beta.byCallId.size, 0, "beta gets nothing of alpha's");
  const alpha = await contextOf('alpha').ledger.lookup({ callIds: ['call_sig'], prefixFingerprints: [] });
  t.equal(alpha.byCallId.get('call_sig')?.callMeta?.call_sig.thoughtSignature, 'ALPHA-SIG', 'alpha finds its own');
});
