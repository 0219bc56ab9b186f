import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// How src/ imports: no import circles (static, dynamic and type-only imports alike: they tie
// modules together just the same for a reader and for the compiler), and dependencies reached only
// through what their packages publish (the package itself, or a subpath its "exports" map declares):
// a file path inside a package can move in any release.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');
/** Module specifiers in `from '…'`, `import '…'`, `import('…')`, `require('…')` and `createRequire(…)('…')`. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\)\s*\(\s*)'([\w@.][\w@./:-]*)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const specifiers = new Map(sources(SRC).map((file) => [file, [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => match[1])]));

/** Cycles in a module graph, by an iterative colouring DFS: grey = on the current path; a grey target closes a cycle. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const colour = new Map<string, 'grey' | 'black'>();
  const cycles: string[][] = [];
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
        cycles.push(path.slice(path.findIndex((step) => step.node === dep)).map((step) => step.node));
      } else if (!colour.has(dep) && graph.has(dep)) {
        colour.set(dep, 'grey');
        path.push({ node: dep, next: 0 });
      }
    }
  }
  return cycles;
}

t.test('the cycle finder sees direct, indirect and self cycles, and nothing in a tree', async (t) => {
  t.same(findCycles(new Map([['a', ['b']], ['b', ['a']]])), [['a', 'b']]);
  t.same(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
  t.same(findCycles(new Map([['a', ['a']]])), [['a']]);
  t.same(findCycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), []);
});

t.test('src/ has no import cycles', async (t) => {
  const graph = new Map<string, string[]>();
  for (const [file, found] of specifiers) {
    const local = found.filter((specifier) => specifier.startsWith('.'));
    graph.set(file, local.map((specifier) => normalize(join(dirname(file), specifier.replace(/\.js$/, '.ts')))));
  }
  t.ok(graph.size > 50, `${graph.size} modules`);
  t.ok([...graph.values()].flat().some((file) => file.endsWith('/tracing/sdk.ts')), 'dynamic imports are edges too');
  const cycles = findCycles(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '));
  t.same(cycles, [], 'no module imports itself through others');
});

/**
 * The layers of src/, top to bottom. A unit is a folder of src/ or a file at its top. A unit imports
 * only units of its own layer or below, no two units import each other, and units do not import in a
 * circle: static, dynamic and type-only imports alike. A new folder takes its place here.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['main', 'cli'], // entry points
  ['app'], // the composition root: builds the gateway from its config, registers the routes
  ['routes'], // the HTTP doors: body validation, the key guard, the request context
  ['messages', 'responses', 'inspector'], // dialects and pages over the chat pipeline
  ['edge'], // what every door runs around the pipeline: the answer's headers, its delivery
  ['pipeline'], // the request path: repair → resolve model → upstream caller → normalize
  ['state'], // where the stores live (memory or Redis)
  ['contract', 'repair', 'tracing', 'auth'], // steps of the request path and what they keep
  ['toolcalls', 'routing'], // call parsing and normalizing; model resolution
  ['providers'], // the upstream adapters
  ['ledger', 'metrics'], // the call ledger; the metrics facade
  ['api', 'http', 'logging', 'resilience', 'request-echo'], // wire shapes, HTTP and retry helpers
  ['config', 'errors', 'util', 'client-abort', 'is-record'], // config, the error catalogue, shared utilities
];

/** The unit of a file under src/: its top folder, or its own name for a file at the top. */
export function unitOf(relativePath: string): string {
  const [first, ...rest] = relativePath.split('/');
  return rest.length > 0 ? first : first.replace(/\.ts$/, '');
}

/** The unit graph of a module graph (files relative to src/). */
export function unitGraph(files: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const units = new Map<string, Set<string>>();
  for (const [file, deps] of files) {
    const from = unitOf(file);
    const targets = units.get(from) ?? new Set<string>();
    units.set(from, targets);
    for (const dep of deps) if (unitOf(dep) !== from) targets.add(unitOf(dep));
  }
  return new Map([...units].map(([unit, targets]) => [unit, [...targets].sort()]));
}

/** What breaks the layers: units not placed, imports that point up, pairs that import each other, circles. */
export function layerProblems(units: ReadonlyMap<string, readonly string[]>, layers: readonly (readonly string[])[]): string[] {
  const level = new Map(layers.flatMap((layer, at) => layer.map((unit) => [unit, at] as const)));
  const problems: string[] = [];
  for (const [unit, targets] of units) {
    const from = level.get(unit);
    if (from === undefined) problems.push(`${unit}: not in LAYERS`);
    for (const target of targets) {
      const to = level.get(target);
      if (from !== undefined && to !== undefined && to < from) problems.push(`${unit} → ${target}: imports a layer above it`);
      if (unit < target && units.get(target)?.includes(unit)) problems.push(`${unit} ↔ ${target}: import each other`);
    }
  }
  for (const cycle of findCycles(units)) if (cycle.length > 2) problems.push(`${cycle.join(' → ')}: import in a circle`);
  return problems;
}

t.test('the layer check sees units out of place, upward imports, pairs and circles', async (t) => {
  const layers = [['top'], ['mid'], ['low']];
  t.same(layerProblems(new Map([['top', ['mid', 'low']], ['mid', ['low']], ['low', []]]), layers), []);
  t.same(layerProblems(new Map([['low', ['top']], ['top', []]]), layers), ['low → top: imports a layer above it']);
  t.same(layerProblems(new Map([['new', []]]), layers), ['new: not in LAYERS']);
  const same = [['a', 'b', 'c']];
  t.same(layerProblems(new Map([['a', ['b']], ['b', ['a']]]), same), ['a ↔ b: import each other']);
  t.same(layerProblems(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]), same), ['a → b → c: import in a circle']);
  t.same(unitOf('pipeline/gateway.ts'), 'pipeline');
  t.same(unitOf('app.ts'), 'app');
});

t.test('src/ folders form layers: every import points down, none both ways, none in a circle', async (t) => {
  const files = new Map<string, string[]>();
  for (const [file, found] of specifiers) {
    const local = found.filter((specifier) => specifier.startsWith('.'));
    files.set(relative(SRC, file), local.map((specifier) => relative(SRC, normalize(join(dirname(file), specifier.replace(/\.js$/, '.ts'))))));
  }
  const units = unitGraph(files);
  t.ok(units.size >= 20, `${units.size} units`);
  t.same(layerProblems(units, LAYERS), [], 'the layers of docs/architecture.md');
  t.same(LAYERS.flat().filter((unit) => !units.has(unit)), [], 'every unit in LAYERS exists');
});

interface PackageJson {
  dependencies?: Record<string, string>;
  exports?: unknown;
}

const readPackage = (path: string): PackageJson => JSON.parse(readFileSync(path, 'utf8')) as PackageJson;

/** The package name of a bare specifier (`@scope/name/sub` → `@scope/name`) and the subpath after it (`./sub`, or `.`). */
export function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return { name: parts.slice(0, length).join('/'), subpath: rest ? `./${rest}` : '.' };
}

/** True when the package's "exports" map publishes the subpath (exact keys and `*` patterns). Without a map only `.` is public. */
export function publishes(exportsField: unknown, subpath: string): boolean {
  if (subpath === '.') return true;
  if (typeof exportsField !== 'object' || exportsField === null || Array.isArray(exportsField)) return false;
  const keys = Object.keys(exportsField).filter((key) => key.startsWith('.'));
  return keys.some((key) => {
    if (!key.includes('*')) return key === subpath;
    const [head, tail] = key.split('*');
    return subpath.startsWith(head) && subpath.endsWith(tail) && subpath.length >= head.length + tail.length;
  });
}

t.test('the export-map reading', async (t) => {
  t.same(splitSpecifier('undici'), { name: 'undici', subpath: '.' });
  t.same(splitSpecifier('undici/lib/core/util.js'), { name: 'undici', subpath: './lib/core/util.js' });
  t.same(splitSpecifier('@opentelemetry/api'), { name: '@opentelemetry/api', subpath: '.' });
  t.same(splitSpecifier('@scope/pkg/deep/file.js'), { name: '@scope/pkg', subpath: './deep/file.js' });
  t.notOk(publishes(undefined, './lib/core/util.js'), 'no exports map: no subpath is public');
  t.ok(publishes({ '.': './index.js', './util': './lib/util.js' }, './util'));
  t.notOk(publishes({ '.': './index.js', './util': './lib/util.js' }, './lib/util.js'));
  t.ok(publishes({ './features/*.js': './lib/*.js' }, './features/a.js'));
  t.notOk(publishes({ './features/*.js': './lib/*.js' }, './other/a.js'));
});

t.test('src/ imports its dependencies only through what they publish', async (t) => {
  const { dependencies = {} } = readPackage(join(ROOT, 'package.json'));
  const builtins = new Set(builtinModules);
  const problems: string[] = [];
  let checked = 0;
  for (const [file, found] of specifiers) {
    for (const specifier of found) {
      if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue;
      checked += 1;
      const where = `${relative(ROOT, file)}: '${specifier}'`;
      const { name, subpath } = splitSpecifier(specifier);
      if (!(name in dependencies)) problems.push(`${where}: ${name} is not in package.json "dependencies"`);
      else if (!publishes(readPackage(join(ROOT, 'node_modules', name, 'package.json')).exports, subpath)) {
        problems.push(`${where}: ${subpath} is a file inside ${name}, not one of its published exports`);
      }
    }
  }
  t.ok(checked > 50, `${checked} imports of packages checked`);
  t.same(problems, [], 'no deep import, no import of a package the installed gateway lacks');
});
