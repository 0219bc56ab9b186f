import t from 'tap';
import { settledHeap } from '../helpers/heap.js';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatChunk, ChatCompletion, ChunkDelta, RawChatRequest } from '../../src/api/chat-types.js';
import type { Gateway } from '../../src/pipeline/gateway.js';
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

const streamChunk = (delta: ChunkDelta, index = 0): ChatChunk => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta, finish_reason: null }] });

// The recorder rebuilds choice 0 from its deltas: content and each call's id, name and arguments
// joined in order, whatever the number of pieces (around the recorder's block size too).
t.test('a streamed answer is recorded as the concatenation of its deltas', async (t) => {
  for (const pieces of [1, 2, 63, 64, 65, 130, 1000]) {
    const entries: LedgerEntry[] = [];
    const { gateway, log } = setup(async (entry) => void entries.push(entry));
    const recorder = new StreamAnswerRecorder(gateway, request, target, log, 'key-a');
    let content = '';
    const args = ['', ''];
    const names = ['', ''];
    for (let i = 0; i < pieces; i++) {
      const text = i % 7 === 3 ? '' : `t${i} `;
      content += text;
      recorder.observe(streamChunk({ content: text }));
      recorder.observe(streamChunk({ content: 'other choice' }, 1));
      const call = i % 2;
      const name = i < 4 ? `n${i}` : '';
      names[call] += name;
      args[call] += `a${i},`;
      recorder.observe(streamChunk({ tool_calls: [{ index: call, ...(i < 2 ? { id: `call_${call}`, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: `a${i},` } }] }));
    }
    recorder.observe({ ...streamChunk({}), choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    await recorder.finish();
    const calls = [0, 1].filter((c) => args[c] !== '').map((c) => ({ id: `call_${c}`, type: 'function', function: { name: names[c], arguments: args[c] } }));
    t.same(recorder.answer, { content, calls }, `${pieces} pieces: the answer`);
    t.same(entries.map((e) => e.message), [{ role: 'assistant', content: content || null, tool_calls: calls }], `${pieces} pieces: the ledger entry`);
    t.same(recorder.usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  }
});

// A stream's recorder keeps content and arguments until the stream ends. Joined with += they were a
// rope node and a string per token (~60 bytes for a 6-character token); now flat blocks.
// Counted in heap bytes after a full GC, not timed.
t.test('a recorder holds about the characters of a long streamed answer', async (t) => {
  const { gateway, log } = setup(async () => undefined);
  const recorders = 40;
  const tokens = 1000;
  const pieces = Array.from({ length: tokens }, (_, i) => `${i % 10}`.padEnd(6, 'y'));
  const before = await settledHeap();
  const kept: StreamAnswerRecorder[] = [];
  for (let r = 0; r < recorders; r++) {
    const recorder = new StreamAnswerRecorder(gateway, request, target, log);
    recorder.observe(streamChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } }] }));
    // A string of its own per token, as each event's would be.
    for (const piece of pieces) {
      recorder.observe(streamChunk({ content: ` ${piece}`.slice(1) }));
      recorder.observe(streamChunk({ tool_calls: [{ index: 0, function: { arguments: ` ${piece}`.slice(1) } }] }));
    }
    kept.push(recorder);
  }
  const held = ((await settledHeap()) - before) / recorders;
  t.equal(kept[recorders - 1].answer.content.length, tokens * 6);
  t.ok(held < 2 * tokens * 24, `${Math.round(held)} bytes held per recorder for ${tokens} content tokens and ${tokens} argument fragments of 6 characters`);
});

t.test('the reasoning and thought signatures that came with the calls are recorded with them, within their bound', async (t) => {
  const entries: LedgerEntry[] = [];
  const { gateway, log } = setup(async (entry) => void entries.push(entry));
  const recorder = new StreamAnswerRecorder(gateway, request, target, log);
  for (const piece of ['I need ', 'the weather.']) recorder.observe(streamChunk({ reasoning_content: piece } as ChunkDelta));
  recorder.observe(streamChunk({ tool_calls: [{ index: 0, ...call, extra_content: { google: { thought_signature: 'sig-1' } } }] }));
  await recorder.finish();
  t.equal(entries[0].message.reasoning_content, 'I need the weather.');
  t.same(entries[0].message.tool_calls, [{ ...call, extra_content: { google: { thought_signature: 'sig-1' } } }]);

  const huge = 'x'.repeat(300 * 1024);
  const long = new StreamAnswerRecorder(gateway, request, target, log);
  for (let i = 0; i < huge.length; i += 4096) long.observe(streamChunk({ reasoning_content: huge.slice(i, i + 4096) } as ChunkDelta));
  long.observe(streamChunk({ tool_calls: [{ index: 0, ...call }] }));
  await long.finish();
  t.equal(entries[1].message.reasoning_content, undefined, 'over the bound: not kept');
  t.same(entries[1].message.tool_calls, [call], 'the calls still are');

  const json = completion(true);
  json.choices[0].message.reasoning_content = huge;
  await recordAnswer(gateway, request, json, target, log);
  t.equal(entries[2].message.reasoning_content, undefined, 'the same bound for a JSON answer');
  json.choices[0].message.reasoning_content = 'short';
  await recordAnswer(gateway, request, json, target, log);
  t.equal(entries[3].message.reasoning_content, 'short');
});
