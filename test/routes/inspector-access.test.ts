import t from 'tap';
import type { FastifyRequest } from 'fastify';
import { isLoopback, pageAllowed, viewerOf } from '../../src/routes/inspector-access.js';
import { inspectorSchema } from '../../src/config/schema.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Records are scoped like every state: a gateway key sees its own requests, an admin key all of
// them; without gateway keys only loopback clients (unless inspector.public).

const KEYS = 'auth:\n  keys:\n    - {key: tg-alpha-key-0001, name: alpha}\n    - {key: tg-beta-key-00002, name: beta}\n    - {key: tg-boss-key-00003, name: boss}\n';

t.test('key B never sees key A\'s records; an admin key sees all', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, `${KEYS}inspector:\n  enabled: true\n  adminKeys: [boss]\n`), logLevel: 'warn' });
  t.teardown(() => gw.close());
  const send = async (key: string, requestId?: string): Promise<string> => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(requestId ? { 'x-request-id': requestId } : {}) },
      body: JSON.stringify({ model: 'simulator/weather', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    return response.headers.get('x-request-id') ?? '';
  };
  const api = async (key: string | undefined, path: string): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${gw.url}/v1/toolgate/requests${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: response.status, body: await response.json() };
  };
  const a1 = await send('tg-alpha-key-0001');
  const a2 = await send('tg-alpha-key-0001');
  // B reuses A's request id (clients may set x-request-id): each still finds only its own record.
  const b1 = await send('tg-beta-key-00002', a1);
  t.equal(b1, a1);

  const list = async (key: string): Promise<Array<{ id: string; keyName?: string }>> => (await api(key, '')).body.data;
  t.same((await list('tg-alpha-key-0001')).map((r) => [r.id, r.keyName]), [[a2, 'alpha'], [a1, 'alpha']], 'alpha: its two');
  t.same((await list('tg-beta-key-00002')).map((r) => [r.id, r.keyName]), [[a1, 'beta']], 'beta: its one');
  t.same((await list('tg-boss-key-00003')).map((r) => r.keyName), ['beta', 'alpha', 'alpha'], 'boss (admin): all of them');

  t.equal((await api('tg-beta-key-00002', `/${a2}`)).status, 404, "beta asking for alpha's record: as if it never existed");
  t.equal((await api('tg-beta-key-00002', `/${a1}`)).body.keyName, 'beta', 'the shared id gives beta its own record');
  t.equal((await api('tg-alpha-key-0001', `/${a1}`)).body.keyName, 'alpha', 'and alpha its own');
  t.equal((await api('tg-boss-key-00003', `/${a2}`)).status, 200);
  t.equal((await api(undefined, '')).status, 401, 'no key: 401 as every /v1 route');
  t.equal((await fetch(`${gw.url}/inspector`)).status, 200, 'the page itself holds no data: served');
});

t.test('without gateway keys: loopback clients only, unless inspector.public', async (t) => {
  const config = inspectorSchema.parse({ enabled: true });
  const from = (remoteAddress: string): FastifyRequest => ({ socket: { remoteAddress } }) as unknown as FastifyRequest;
  const remote = viewerOf(from('10.1.2.3'), config, false);
  t.ok('error' in remote && remote.error.status === 403 && remote.error.code === 'inspector_forbidden', 'a remote client gets 403');
  t.same(viewerOf(from('127.0.0.1'), config, false), { scope: 'all' });
  t.same(viewerOf(from('::ffff:127.0.0.9'), config, false), { scope: 'all' });
  t.same(viewerOf(from('10.1.2.3'), { ...config, public: true }, false), { scope: 'all' });
  t.notOk(pageAllowed(from('192.168.1.4'), config, false));
  t.ok(pageAllowed(from('192.168.1.4'), { ...config, public: true }, false));
  t.ok(pageAllowed(from('192.168.1.4'), config, true), 'with keys the page is served; the API asks for a key');
  for (const address of ['127.0.0.1', '127.255.0.1', '::1', '::ffff:127.0.0.1']) t.ok(isLoopback(address), address);
  for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1', '::2', '1270.0.0.1', '', 'localhost']) t.notOk(isLoopback(address), address);

  const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n'), logLevel: 'warn' });
  t.teardown(() => gw.close());
  t.equal((await fetch(`${gw.url}/v1/toolgate/requests`)).status, 200, 'a loopback client, no keys');
  t.equal((await fetch(`${gw.url}/inspector`)).status, 200);
});
