import t from 'tap';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatCompletion, RawChatRequest } from '../../src/api/chat-types.js';
import type { Gateway } from '../../src/gateway.js';
import { prefixFingerprint } from '../../src/ledger/fingerprint.js';
import type { CallLedger, LedgerEntry } from '../../src/ledger/types.js';
import { recordAnswer, StreamAnswerRecorder } from '../../src/pipeline/record.js';
import type { ResolvedModel } from '../../src/routing/router.js';

// The ledger write after an answer: what is recorded, and that a failing ledger (a rejected
// promise or a throw) costs a warning, never the answer.

const request: RawChatRequest = { model: 'alias', messages: [{ role: 'user', content: 'weather  in\nParis?' }] };
const target = { requested: 'alias', upstreamModel: 'm', provider: { settings: { name: 'up' } } } as unknown as ResolvedModel;
const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const completion = (withCalls: boolean): ChatCompletion =>
  ({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, ...(withCalls ? { tool_calls: [call] } : {}) }, finish_reason: 'stop' }] }) as ChatCompletion;

function setup(record: (entry: LedgerEntry) => Promise<void>): { gateway: Gateway; log: FastifyBaseLogger; warnings: Array<{ object: { err?: Error }; message: string }>; scopes: string[] } {
  const warnings: Array<{ object: { err?: Error }; message: string }> = [];
  const scopes: string[] = [];
  const ledger: CallLedger = { record, lookup: async () => ({ byCallId: new Map(), byPrefix: new Map() }), forScope: (scope) => (scopes.push(scope), ledger) };
  const log = { warn: (object: { err?: Error }, message: string) => void warnings.push({ object, message }) } as unknown as FastifyBaseLogger;
  return { gateway: { ledger } as unknown as Gateway, log, warnings, scopes };
}

t.test('a tool-calling answer is recorded under the fingerprint of the client messages', async (t) => {
  const entries: LedgerEntry[] = [];
  const { gateway, log, warnings, scopes } = setup(async (entry) => void entries.push(entry));
  await recordAnswer(gateway, request, completion(true), target, log, 'key-a');
  t.equal(entries.length, 1);
  t.same(entries[0].message.tool_calls, [call]);
  t.equal(entries[0].prefixFingerprint, prefixFingerprint(request.messages, 1, 'key-a'));
  t.match(entries[0], { provider: 'up', model: 'alias' });
  t.equal(scopes.length, 1);
  t.same(warnings, []);
  await recordAnswer(gateway, request, completion(false), target, log);
  t.equal(entries.length, 1, 'an answer without calls is not recorded');
});

t.test('a ledger write that fails is a warning; the answer goes on', async (t) => {
  for (const [how, record] of [
    ['rejects', () => Promise.reject(new Error('redis down'))],
    ['throws', () => {
      throw new Error('redis down');
    }],
  ] as const) {
    const { gateway, log, warnings } = setup(record);
    await recordAnswer(gateway, request, completion(true), target, log);
    t.same(warnings.map((w) => [w.message, w.object.err?.message]), [['call ledger write failed', 'redis down']], `JSON answer, the ledger ${how}`);
    const stream = setup(record);
    const recorder = new StreamAnswerRecorder(stream.gateway, request, target, stream.log);
    recorder.observe({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] }, finish_reason: null }] });
    await recorder.finish();
    t.same(stream.warnings.map((w) => w.message), ['call ledger write failed'], `streamed answer, the ledger ${how}`);
  }
});
