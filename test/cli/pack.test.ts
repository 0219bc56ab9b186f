import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';

// The package as a user gets it: `npm pack` → `npm install <tgz>` in an empty folder → the
// `toolgate` command. Packs the dist/ that `npm test` builds before tap (like start.test.ts), with
// --ignore-scripts so the test never rebuilds dist/ under other tests. Installs from the warm npm
// cache (--prefer-offline).

// npm pack + an offline install + six commands: a minute on a quiet machine, more under load.
t.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SECRET = 'sk-pack-test-secret-0001';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

// npm and the installed package are not src/: under c8 they would only write coverage nobody reads.
const { NODE_V8_COVERAGE: _coverage, ...childEnv } = process.env;

async function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd, env: { ...childEnv, ...env }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

function exitsZero(t: Test, result: Result, what: string): void {
  t.equal(result.code, 0, result.code === 0 ? `${what}: exit 0` : `${what}: exit ${result.code}: ${result.stderr}`);
}

t.test('npm pack → install → toolgate works from the installed package', async (t) => {
  t.ok(existsSync(join(ROOT, 'dist/cli/index.js')), 'dist/ is built (npm test builds before tap)');
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-pack-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const packed = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  exitsZero(t, packed, 'packed');
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const paths = info.files.map((f) => f.path);
  t.ok(paths.includes('dist/cli/index.js') && paths.includes('dist/main.js'), 'the built code is in');
  t.ok(paths.includes('config/gateway.yaml') && paths.includes('README.md'), 'the default config and README are in');
  t.same(paths.filter((p) => !/^(dist\/|docs\/|config\/gateway\.yaml$|README\.md$|CHANGELOG\.md$|package\.json$|LICENSE)/.test(p)), [], 'nothing else: no tests, bench, src or scripts');
  t.same(paths.filter((p) => p.endsWith('.map')), [], 'no source maps (they point at src/, which is not shipped)');

  const app = join(dir, 'app');
  await sh('mkdir', ['-p', app], dir);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'try-toolgate', version: '1.0.0', private: true }));
  const installed = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, info.filename)], app);
  exitsZero(t, installed, 'installed');

  const help = await sh('npx', ['--no-install', 'toolgate', '--help'], app);
  exitsZero(t, help, 'help');
  t.match(help.stdout, /toolgate lint <file\.json>/);
  t.match(help.stdout, /toolgate check-config/);
  t.equal((await sh('npx', ['--no-install', 'toolgate', '--version'], app)).stdout.trim(), VERSION);

  const repairable = join(dir, 'repairable.json');
  writeFileSync(repairable, JSON.stringify([
    { role: 'user', content: 'Weather in Rome?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: "{city: 'Rome',}" } }] },
  ]));
  const linted = await sh('npx', ['--no-install', 'toolgate', 'lint', repairable], app);
  exitsZero(t, linted, 'linted');
  t.match(linted.stdout, /arguments_repaired/);
  t.match(linted.stdout, /missing_tool_result/);

  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify([{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { arguments: '{}' } }] }]));
  const unrepairable = await sh('npx', ['--no-install', 'toolgate', 'lint', broken], app);
  t.equal(unrepairable.code, 1, 'exit 1 when the history cannot be repaired');
  t.match(unrepairable.stdout, /no function name/);

  // No config/ in this folder: the packaged config is used, secrets from the env come out masked.
  const checked = await sh('npx', ['--no-install', 'toolgate', 'check-config'], app, { OPENAI_API_KEY: SECRET });
  exitsZero(t, checked, 'checked');
  t.match(checked.stdout, /apiKey: "?\[REDACTED\]"?/);
  t.notOk(checked.stdout.includes(SECRET) || checked.stderr.includes(SECRET), 'the key never appears');
  t.match(checked.stderr, /is valid/);
  const badConfig = join(dir, 'bad.yaml');
  writeFileSync(badConfig, 'providers:\n  openai:\n    type: openai\n    baseUrl: not-a-url\n');
  const rejected = await sh('npx', ['--no-install', 'toolgate', 'check-config', badConfig], app);
  t.equal(rejected.code, 1);
  t.match(rejected.stderr, /providers\.openai\.baseUrl/);

  // And it serves: the installed command on a free port answers /healthz, then drains on SIGTERM.
  const bin = join(app, 'node_modules/.bin/toolgate');
  const child = spawn(bin, ['--port', '0', '--host', '127.0.0.1'], { cwd: app, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(output);
      if (match) resolve(match[1]);
    });
  });
  t.equal((await fetch(`${address}/healthz`)).status, 200);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});
