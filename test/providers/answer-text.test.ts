import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { ClientAbort } from '../../src/client-abort.js';
import { ERROR_BODY_PREFIX_BYTES } from '../../src/providers/upstream-body.js';
import { UpstreamClient } from '../../src/providers/upstream-http.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { pumpingServer, type PumpingServer } from '../helpers/pumping-server.js';
import { testUpstreamClient } from '../helpers/test-upstream-client.js';

// UpstreamClient.postForText (answer-text.ts): a JSON answer read whole without a body stream, with
// the limits and error mapping of post + readErrorText (upstream-body.test.ts), for every adapter's JSON answer:
// a byte cap past which the request is cut (its connection not pooled mid-body), an error body
// read to a 64 KiB prefix and never failing, the client's abort, failures before and after headers.

interface Served extends PumpingServer {
  client: UpstreamClient;
}

async function serve(t: Test, handler: Parameters<typeof pumpingServer>[1], settings: Partial<ProviderSettings> = {}): Promise<Served> {
  const server = await pumpingServer(t, handler);
  const client = testUpstreamClient(server.origin, settings);
  t.teardown(() => client.close());
  return { ...server, client };
}

const post = (client: UpstreamClient, signal = new ClientAbort().signal) => client.postForText('/chat/completions', '{"a":1}', {}, signal);

t.test('an answer within the cap: its text, BOM dropped, characters split across reads joined, the connection kept', async (t) => {
  const text = `{"content":"${'é€😀'.repeat(20_000)}"}`;
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const answer = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let at = 0; at < bytes.length; at += 1001) res.write(bytes.subarray(at, at + 1001));
    res.end();
  };
  const capped = await serve(t, answer, { maxResponseBytes: bytes.length });
  t.match(await post(capped.client), { status: 200, text, complete: true }, 'exactly the cap passes');
  t.equal((await post(capped.client)).text, text);
  t.equal(capped.connections(), 1, 'a whole answer keeps its pooled connection');
  const byDefault = await serve(t, answer);
  t.equal((await post(byDefault.client)).text, text, 'the default cap');
});

t.test('an answer past the cap: a 502 naming the cap, reading stopped, the connection closed', async (t) => {
  const cap = 256 * 1024;
  const { client, written, connections, closed } = await serve(
    t,
    (res, pump) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"secret-looking":"sk-body-content-1"');
      pump(256 * 1024 * 1024);
    },
    { maxResponseBytes: cap },
  );
  const error = await post(client).catch((e: unknown) => e);
  t.match(error, {
    status: 502,
    code: 'upstream_bad_response',
    message: `Provider 'up' sent a response toolgate could not read: an answer larger than ${cap} bytes (providers.up.maxResponseBytes).`,
  });
  t.notMatch(String((error as Error).message), /sk-body-content/);
  await closed();
  t.ok(written() < 32 * 1024 * 1024, `the upstream wrote ${written()} bytes of 256 MB before the close`);
  await post(client).catch(() => undefined);
  t.equal(connections(), 2, 'the next request got a new connection (the cut one was not reused)');
});

t.test('an error status: the first 64 KiB of its body and its headers, the rest discarded with the connection', async (t) => {
  const message = JSON.stringify({ error: { message: 'overloaded' } });
  const { client, written, closed } = await serve(t, (res, pump) => {
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '7' });
    res.write(message);
    pump(256 * 1024 * 1024);
  });
  const answer = await post(client);
  t.equal(answer.status, 503);
  t.equal(answer.headers['retry-after'], '7');
  t.equal(Buffer.byteLength(answer.text), ERROR_BODY_PREFIX_BYTES, 'a 64 KiB prefix');
  t.ok(answer.text.startsWith(message), 'from the start of the body');
  await closed();
  t.ok(written() < 32 * 1024 * 1024, `the upstream wrote ${written()} bytes of 256 MB`);
});

t.test('an error body that fails mid-way reads as empty, never throws; a small one is read whole', async (t) => {
  const failing = await serve(t, (res) => {
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"error":');
    setTimeout(() => res.destroy(), 10);
  });
  t.match(await post(failing.client), { status: 500, text: '' });
  const small = await serve(t, (res) => {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"slow down"}}');
  });
  t.equal((await post(small.client)).text, '{"error":{"message":"slow down"}}');
  t.equal((await post(small.client)).text, '{"error":{"message":"slow down"}}');
  t.equal(small.connections(), 1, 'and keeps its connection');
});

t.test('an answer cut mid-body: the connection lost mid-response (502), not an unreachable upstream', async (t) => {
  const { client } = await serve(t, (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"id":');
    setTimeout(() => res.destroy(), 10);
  });
  const error = await post(client).catch((e: unknown) => e);
  t.match(error, { status: 502, code: 'upstream_bad_response', message: /connection lost mid-response/ });
});

t.test('an upstream that refuses the connection: unreachable (502)', async (t) => {
  const { client } = await serve(t, () => undefined, { baseUrl: 'http://127.0.0.1:1/v1' });
  t.match(await post(client).catch((e: unknown) => e), { status: 502, code: 'upstream_unreachable' });
});

t.test("the client's abort, before the answer's status or mid-body: client_closed_request, the connection cut", async (t) => {
  const { client, closed } = await serve(t, (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":');
  });
  const midBody = new ClientAbort();
  const pending = post(client, midBody.signal);
  setTimeout(() => midBody.abort(), 50);
  t.match(await pending.catch((e: unknown) => e), { status: 499, code: 'client_closed_request' });
  await closed();

  const { client: silent } = await serve(t, () => undefined);
  const early = new ClientAbort();
  const waiting = post(silent, early.signal);
  setTimeout(() => early.abort(), 50);
  t.match(await waiting.catch((e: unknown) => e), { status: 499, code: 'client_closed_request' });

  const already = new ClientAbort();
  already.abort();
  t.match(await post(silent, already.signal).catch((e: unknown) => e), { status: 499, code: 'client_closed_request' });
});
