import { Redis } from 'ioredis';
import t from 'tap';
import { Limiter } from '../../src/auth/limits.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { FailSafeLedger } from '../../src/state/failsafe-ledger.js';
import { createRedisClient, closeRedis, waitReady } from '../../src/state/redis-client.js';
import { RedisCounterStore } from '../../src/state/redis-counters.js';
import { RedisLedger } from '../../src/state/redis-ledger.js';
import { startRedis } from '../helpers/redis-server.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as any;
// Healthy-path clients wait up to 2 s for a reply (a loaded machine can stall one for 300 ms); the
// outage test's own client has the short timeout it checks.
const stateConfig = (url: string, commandTimeoutMs = 2000) => ({ type: 'redis' as const, url, keyPrefix: 't:', connectTimeoutMs: 2000, commandTimeoutMs, limitsFailMode: 'open' as const });

const entry = (fp: string, ...ids: string[]): LedgerEntry => ledgerEntry(fp, ids, { args: (id) => `{"id":"${id}"}`, createdAt: 1 });

t.test('Redis ledger and counters on a real redis-server', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.close());
  const clientA = createRedisClient(stateConfig(redis.url), silent);
  const clientB = createRedisClient(stateConfig(redis.url), silent);
  t.teardown(() => Promise.all([closeRedis(clientA), closeRedis(clientB)]));
  t.ok(await waitReady(clientA, 2000));
  t.ok(await waitReady(clientB, 2000));
  const a = new RedisLedger(clientA, { prefix: 't:', ttlMs: 60_000 });
  const b = new RedisLedger(clientB, { prefix: 't:', ttlMs: 60_000 });

  t.test('record on one client, lookup on another, by call id and by prefix', async (t) => {
    await a.record(entry('fp1', 'call_a', 'call_b'));
    const snap = await b.lookup({ callIds: ['call_a', 'call_b', 'nope'], prefixFingerprints: ['fp1', 'fp-none'] });
    t.same([...snap.byCallId.keys()], ['call_a', 'call_b']);
    t.same([...snap.byPrefix.keys()], ['fp1']);
    t.same(snap.byPrefix.get('fp1')!.message, entry('fp1', 'call_a', 'call_b').message);
    t.equal(snap.byCallId.get('call_a'), snap.byPrefix.get('fp1'), 'one entry behind both indexes');
    t.same(await b.lookup({ callIds: [], prefixFingerprints: [] }), { byCallId: new Map(), byPrefix: new Map() });
  });

  t.test('record merges callMeta per call id, keeps the later non-empty fingerprint and message', async (t) => {
    // The Gemini adapter first: signatures by call id, no fingerprint.
    await a.record({ ...entry('', 'g1', 'g2'), provider: 'gemini', callMeta: { g1: { thoughtSignature: 'sig-1' }, g2: { thoughtSignature: 'sig-2', upstreamId: 'u2' } } });
    // Then the pipeline: the answer as the client got it, with its fingerprint.
    const answer = entry('fp-g', 'g1', 'g2');
    answer.message.content = 'calling';
    await b.record(answer);
    // A later meta update for one call adds, never drops.
    await a.record({ ...entry('', 'g1'), message: { role: 'assistant', content: null }, callMeta: { g1: { upstreamId: 'u1' } } });
    const snap = await b.lookup({ callIds: ['g1', 'g2'], prefixFingerprints: ['fp-g'] });
    const merged = snap.byPrefix.get('fp-g')!;
    t.ok(merged, 'found by the fingerprint recorded second');
    t.equal(merged, snap.byCallId.get('g1'));
    t.equal(merged, snap.byCallId.get('g2'));
    t.same(merged.callMeta, { g1: { thoughtSignature: 'sig-1', upstreamId: 'u1' }, g2: { thoughtSignature: 'sig-2', upstreamId: 'u2' } });
    t.equal(merged.message.content, 'calling', 'the empty message of the later meta record did not replace it');
    t.equal(merged.prefixFingerprint, 'fp-g');
    // And the other order: answer first, meta second.
    await b.record(entry('fp-h', 'h1'));
    await a.record({ ...entry('', 'h1'), callMeta: { h1: { thoughtSignature: 'sig-h' } } });
    const again = await a.lookup({ callIds: ['h1'], prefixFingerprints: ['fp-h'] });
    t.equal(again.byPrefix.get('fp-h')!.callMeta!.h1.thoughtSignature, 'sig-h');
    t.equal(again.byCallId.get('h1')!.prefixFingerprint, 'fp-h');
  });

  t.test('a new answer for the same prefix replaces the prefix index; old call ids keep their own answer', async (t) => {
    await a.record(entry('fp-r', 'old1'));
    await a.record(entry('fp-r', 'new1'));
    const snap = await b.lookup({ callIds: ['old1', 'new1'], prefixFingerprints: ['fp-r'] });
    t.equal(snap.byPrefix.get('fp-r')!.message.tool_calls![0].id, 'new1');
    t.equal(snap.byCallId.get('old1')!.message.tool_calls![0].id, 'old1');
  });

  t.test('entries expire with the ledger TTL', async (t) => {
    // Long enough for the write and the read before it on a loaded machine; waited out in full.
    const short = new RedisLedger(clientA, { prefix: 't:', ttlMs: 1000 });
    await short.record(entry('fp-ttl', 'ttl1'));
    t.equal((await b.lookup({ callIds: ['ttl1'], prefixFingerprints: [] })).byCallId.size, 1);
    await new Promise((r) => setTimeout(r, 1100));
    const snap = await b.lookup({ callIds: ['ttl1'], prefixFingerprints: ['fp-ttl'] });
    t.equal(snap.byCallId.size + snap.byPrefix.size, 0);
    const raw = new Redis(redis.url);
    t.teardown(() => raw.quit());
    t.same(await raw.keys('t:ledger:*ttl*'), []);
  });

  t.test('counters are shared and expire', async (t) => {
    const ca = new RedisCounterStore(clientA, 't:');
    const cb = new RedisCounterStore(clientB, 't:');
    t.equal(await ca.add('x', 1, 60_000), 1);
    t.equal(await cb.add('x', 2, 60_000), 3);
    t.equal(await ca.get('x'), 3);
    t.equal(await ca.get('missing'), 0);
    await ca.add('short', 5, 100);
    await new Promise((r) => setTimeout(r, 250));
    t.equal(await cb.get('short'), 0);
  });

  t.test('outage: commands fail fast, the fail-safe ledger serves empty snapshots, limits fail open', async (t) => {
    const quick = createRedisClient(stateConfig(redis.url, 300), silent);
    t.teardown(() => closeRedis(quick));
    t.ok(await waitReady(quick, 2000));
    await redis.stop();
    const safe = new FailSafeLedger(new RedisLedger(quick, { prefix: 't:', ttlMs: 60_000 }), silent);
    const started = Date.now();
    t.same(await safe.lookup({ callIds: ['call_a'], prefixFingerprints: [] }), { byCallId: new Map(), byPrefix: new Map() });
    await safe.record(entry('fp-x', 'x1'));
    const limiter = new Limiter({ store: new RedisCounterStore(quick, 't:'), failMode: 'open', log: silent });
    await limiter.admit({ name: 'k', requestsPerMinute: 1, allows: () => true });
    t.ok(Date.now() - started < 1500, `no hang while Redis is down (${Date.now() - started} ms)`);
    await redis.restart();
    t.ok(await waitReady(clientA, 5000), 'reconnects on its own');
    await a.record(entry('fp-back', 'back1'));
    t.equal((await a.lookup({ callIds: ['back1'], prefixFingerprints: [] })).byCallId.size, 1);
  });
});
