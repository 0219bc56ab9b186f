import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gatewayFlags } from './inproc.js';
import { requestBody } from './scenario.js';

// The JSON path's per-request steps one by one (body walk, declared tools, argument validation,
// name and task caches, ledger lookup and sizing, finding summaries), each build's dist/ loaded in
// this process, builds alternated over rounds: µs per step, for A/B of a change too small to
// show above the noise of a whole request on a busy machine. Same inputs as bench/json-inproc.ts.
//
//   node --import tsx bench/json-steps.ts --gw=before=<root> --gw=after=<root> [--iterations=20000]

type Fn = (...args: unknown[]) => unknown;
type Module = Record<string, Fn & (new (...args: unknown[]) => Record<string, Fn>)>;
type Build = Record<string, Module>;
type Step = ((input?: unknown) => void) & { fresh?: boolean };

const MODULES = {
  args: 'toolcalls/arguments.js',
  body: 'http/json-body.js',
  repair: 'repair/index.js',
  memory: 'ledger/memory.js',
  tasks: 'metrics/tasks.js',
  names: 'pipeline/name-caches.js',
  budget: 'repair/bounded-json.js',
} as const;

async function load(root: string): Promise<Build> {
  const build: Build = {};
  for (const [name, path] of Object.entries(MODULES)) build[name] = (await import(pathToFileURL(join(root, 'dist', path)).href)) as Module;
  return build;
}

const body = requestBody();
const parsed = (): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;
const schemas = (parsed().tools as Array<{ function: { parameters: object } }>).map((tool) => tool.function.parameters);

const STEPS: Record<string, (m: Build) => Step> = {
  'argument validators, 2 new equal schema objects': (m) => {
    const [a, b] = [structuredClone(schemas[0]), structuredClone(schemas[1])];
    // The per-key budget new schemas are compiled from (since 9c3513f; older builds ignore it).
    const budget = new m.budget.RepairBudget();
    return () => {
      m.args.validatorFor(a, budget);
      m.args.validatorFor(b, budget);
    };
  },
  'fixArguments, 2 calls': (m) => {
    const [a, b] = [structuredClone(schemas[0]), structuredClone(schemas[1])];
    const budget = new m.budget.RepairBudget();
    return () => {
      m.args.fixArguments('{"city":"Paris","unit":"celsius"}', a, budget);
      m.args.fixArguments('{"tz":"Europe/Paris"}', b, budget);
    };
  },
  'body walk (checkTree)': (m) => {
    const value = parsed();
    const limits = { maxDepth: 64, maxStringLength: 1_000_000 };
    return () => m.body.checkTree(value, limits);
  },
  'declared tools + tool-definitions pass, a new request': (m) => {
    const passes = m.repair.PASSES as unknown as Array<{ run: Fn }>;
    const step: Step = (request) => {
      m.repair.declaredToolsOnce(request);
      passes[0].run(request, {});
    };
    step.fresh = true;
    return step;
  },
  'name resolver + codec, the same 3 tools': (m) => {
    const caches = new m.names.NameCaches({});
    const rule = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };
    return () => {
      const names = ['get_weather', 'get_time', 'search_web'].map((name) => name);
      caches.codec(names, rule);
      caches.resolver(names);
    };
  },
  'task key, the same prompt': (m) => {
    const messages = parsed().messages;
    return () => m.tasks.taskKeyFor({ messages });
  },
  'task tracker call, the same task': (m) => {
    const tracker = new m.tasks.TaskTracker({ idleMs: 1e9, maxTasks: 100, onEnd() {} });
    for (let i = 0; i < 50; i++) tracker.call(`k${i}`);
    return () => tracker.call('fp:abc');
  },
  'ledger lookup, 2 ids, nothing found': (m) => {
    const ledger = new m.memory.MemoryLedger();
    const query = { callIds: ['call_a1', 'call_a2'], prefixFingerprints: [] };
    return () => ledger.lookup(query);
  },
  'finding summaries, valid history': (m) => () => {
    m.repair.summarizeFindings([]);
    m.repair.summarizeWarnings([]);
  },
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const iterations = Number(process.argv.find((arg) => arg.startsWith('--iterations='))?.slice(13) ?? 20_000);
  const builds = await Promise.all(gatewayFlags().map(async ({ label, root }) => ({ label, build: await load(root) })));
  process.stdout.write(`| step (µs, median of rounds) | ${builds.map((b) => b.label).join(' | ')} |\n|---|${builds.map(() => '---:').join('|')}|\n`);
  for (const [name, make] of Object.entries(STEPS)) {
    const steps = builds.map(({ build }) => make(build));
    const fresh = steps[0].fresh === true;
    // Fresh inputs (a step that keeps state on its request) come in small batches made before timing.
    const batch = fresh ? 300 : iterations;
    for (const step of steps) for (let i = 0; i < 2000; i++) step(fresh ? parsed() : undefined);
    const times: number[][] = steps.map(() => []);
    for (let round = 0; round < (fresh ? 60 : 8); round++) {
      const order = round % 2 === 0 ? steps.map((_, i) => i) : steps.map((_, i) => steps.length - 1 - i);
      for (const i of order) {
        const inputs = fresh ? Array.from({ length: batch }, parsed) : [];
        const started = process.hrtime.bigint();
        for (let n = 0; n < batch; n++) steps[i](inputs[n]);
        times[i].push(Number(process.hrtime.bigint() - started) / batch / 1000);
      }
    }
    process.stdout.write(`| ${name} | ${times.map((t) => median(t).toFixed(2)).join(' | ')} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`json-steps failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
