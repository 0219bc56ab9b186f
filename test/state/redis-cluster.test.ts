import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseConfig } from '../../src/config/load.js';
import { createState } from '../../src/state/index.js';
import { startRedis } from '../helpers/redis-server.js';

// The ledger's and the store's Lua scripts build keys at run time: not Cluster-safe. A Cluster
// node is refused at startup with a clear message; a single node is accepted.

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined } as any;
const configFor = (url: string) => parseConfig(`providers:\n  simulator: {type: simulator}\nstate:\n  type: redis\n  url: ${url}\n`, {}, 'test').config;

t.test('a Redis Cluster node is refused at startup; a single node is not', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cluster-'));
  const cluster = await startRedis(['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')]);
  const single = await startRedis();
  t.teardown(async () => {
    await cluster.close();
    await single.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await t.rejects(createState(configFor(cluster.url), silent), { name: 'ConfigError', message: /Redis Cluster node: toolgate needs a single Redis/ });
  const state = await createState(configFor(single.url), silent);
  t.ok(state.redis);
  await state.close();
});
