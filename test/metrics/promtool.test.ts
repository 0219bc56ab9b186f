import { spawnSync } from 'node:child_process';
import t from 'tap';
import { REPO_ROOT } from './promql-sources.js';
import { requireBinary } from './tools.js';

const promtool = requireBinary('promtool');

function check(args: string[]) {
  if (!('path' in promtool)) throw new Error('unreachable');
  return spawnSync(promtool.path, args, { cwd: REPO_ROOT, encoding: 'utf8' });
}

t.test('promtool check rules config/alerts.yml', { skip: 'skip' in promtool ? promtool.skip : false }, async (t) => {
  const result = check(['check', 'rules', 'config/alerts.yml']);
  t.equal(result.status, 0, result.stdout + result.stderr);
  t.match(result.stdout, /SUCCESS: 5 rules found/);
});

t.test('promtool check config config/prometheus.yml', { skip: 'skip' in promtool ? promtool.skip : false }, async (t) => {
  const result = check(['check', 'config', 'config/prometheus.yml']);
  t.equal(result.status, 0, result.stdout + result.stderr);
  t.match(result.stdout, /SUCCESS: 1 rule files found/);
});

t.test('a missing binary skips locally and fails in CI', async (t) => {
  const saved = process.env.CI;
  t.teardown(() => {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  });
  delete process.env.CI;
  t.match(requireBinary('toolgate-no-such-binary'), { skip: /not found: apt-get install/ });
  process.env.CI = 'true';
  t.throws(() => requireBinary('toolgate-no-such-binary'), /required in CI/);
});
