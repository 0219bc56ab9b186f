import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

// Tests mirror src/ (issue 16): every folder under test/ is a folder of src/ or one of the few
// cross-cutting ones below (agents/ holds the real-agent suite, bench/ the benchmark's own tests, compliance/ public specs' suites, run/ the suite's runner); no folder named after a project phase.

const root = new URL('../', import.meta.url).pathname;
const CROSS_CUTTING = new Set(['adversarial', 'agents', 'bench', 'compliance', 'contract', 'deploy', 'docs', 'e2e', 'emulators', 'fixtures', 'helpers', 'run', 'vendor']);
const SUPPORT = new Set(['emulator', 'fixtures', 'helpers']);

function folders(dir: string): string[] {
  return readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
}

function isSrcFolder(relative: string): boolean {
  try {
    return statSync(join(root, 'src', relative)).isDirectory();
  } catch {
    return false;
  }
}

t.test('every test folder mirrors a src folder or is a named cross-cutting one', async (t) => {
  const strays: string[] = [];
  const walk = (relative: string): void => {
    for (const name of folders(join(root, 'test', relative))) {
      const path = relative ? `${relative}/${name}` : name;
      if (!relative && CROSS_CUTTING.has(name)) continue;
      if (relative && SUPPORT.has(name)) continue;
      if (!isSrcFolder(path)) strays.push(`test/${path}`);
      else walk(path);
    }
  };
  walk('');
  t.same(strays, [], 'no test folder outside the mirror of src/');
});

t.test('the top of test/ holds only test files (no leftover scripts)', async (t) => {
  const loose = readdirSync(join(root, 'test')).filter((name) => !statSync(join(root, 'test', name)).isDirectory() && !name.endsWith('.test.ts'));
  t.same(loose, [], 'a script that is not a test lives in a named folder (helpers/, run/, …) or nowhere');
});
