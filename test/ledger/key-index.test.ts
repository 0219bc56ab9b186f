import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { callHash, prefixHash } from '../../src/ledger/key-index.js';

// The index's key hashes are seeded per process: ids crafted offline to collide (call ids come from
// model output a client can steer) must not collide in a running gateway.

const moduleUrl = new URL('../../src/ledger/key-index.ts', import.meta.url).href;

function hashesInFreshProcess(): string {
  const script = `import(${JSON.stringify(moduleUrl)}).then((m) => console.log(m.callHash('', 'call_1'), m.prefixHash('', 'fp')))`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8' }).trim();
}

t.test('the same key hashes alike within a process', async (t) => {
  t.equal(callHash('scope', 'call_1'), callHash('scope', 'call_1'));
  t.equal(prefixHash('scope', 'fp'), prefixHash('scope', 'fp'));
});

t.test('two processes hash the same keys differently (a per-process seed)', async (t) => {
  const first = hashesInFreshProcess();
  const second = hashesInFreshProcess();
  t.match(first, /^-?\d+ -?\d+$/);
  t.not(first, second, 'a collision computed in one process does not carry to another');
});
