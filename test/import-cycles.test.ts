import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// Issue 16 §7: no import cycles in src/, type-only imports included (they tie modules together
// just the same for a reader and for the compiler).

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const IMPORT = /(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

t.test('src/ has no import cycles', async (t) => {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    graph.set(file, [...text.matchAll(IMPORT)].map((match) => normalize(join(dirname(file), match[1].replace(/\.js$/, '.ts')))));
  }
  t.ok(graph.size > 50, `${graph.size} modules`);
  // Iterative colouring DFS: grey = on the current path; a grey target closes a cycle.
  const colour = new Map<string, 'grey' | 'black'>();
  const cycles: string[] = [];
  for (const start of graph.keys()) {
    if (colour.has(start)) continue;
    const path: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    colour.set(start, 'grey');
    while (path.length > 0) {
      const top = path[path.length - 1];
      const deps = graph.get(top.node) ?? [];
      if (top.next >= deps.length) {
        colour.set(top.node, 'black');
        path.pop();
        continue;
      }
      const dep = deps[top.next++];
      if (colour.get(dep) === 'grey') {
        const from = path.findIndex((step) => step.node === dep);
        cycles.push(path.slice(from).map((step) => relative(SRC, step.node)).join(' → '));
      } else if (!colour.has(dep) && graph.has(dep)) {
        colour.set(dep, 'grey');
        path.push({ node: dep, next: 0 });
      }
    }
  }
  t.same(cycles, [], 'no module imports itself through others');
});
