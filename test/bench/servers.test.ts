import { readFileSync } from 'node:fs';
import t from 'tap';
import { SHIPPED_NODE_ARGS, shippedNodeArgs } from '../../bench/servers.js';

// The bench starts toolgate with the node flags of `npm start` (and so of the Docker CMD): it measures
// the gateway as it ships.

t.test('the flags between node and dist/main.js, nothing else', async (t) => {
  const scripts = (start: string): string => JSON.stringify({ scripts: { start } });
  t.same(shippedNodeArgs(scripts('node dist/main.js')), []);
  t.same(shippedNodeArgs(scripts('node --max-semi-space-size=16 dist/main.js')), ['--max-semi-space-size=16']);
  t.same(shippedNodeArgs(scripts('node --a=1 --b dist/main.js --config x.yaml')), ['--a=1', '--b']);
  t.same(shippedNodeArgs(JSON.stringify({})), []);
});

t.test("this repository's start script", async (t) => {
  const start = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  t.same(['node', ...SHIPPED_NODE_ARGS, 'dist/main.js'].join(' '), start);
});
