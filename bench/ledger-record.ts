import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import { gatewayFlags } from './inproc.js';
import { requestBody } from './scenario.js';

// The call ledger's record of one tool-calling answer (what every such JSON request and stream
// pays at its end), at a full ledger (every record evicts), with the history fingerprint the
// pipeline records it under: µs per record, builds alternated over rounds, each build's dist/
// loaded in this process. For A/B of a ledger change too small to show in a whole request.
// Then what an entry holds: heap bytes retained per entry (heapUsed after full GCs, 20,000 entries
// in a ledger that evicts none), off-heap bytes (ArrayBuffers: a ring ledger's Buffer, at its
// allocated size, and typed arrays) next to the bytes the ledger counts for it (its budget's figure).
//
//   node --import tsx bench/ledger-record.ts --gw=before=<root> --gw=after=<root> [--iterations=20000] [--rounds=6]

type Ledger = { record(entry: unknown): Promise<void>; forScope(scope: string): Ledger; stats(): { bytes?: number }; size: number };
type LedgerClass = new (options?: { maxEntries?: number; maxBytes?: number }) => Ledger;
interface Build {
  name: string;
  Ledger: LedgerClass;
  ledger: Ledger;
  fingerprint: (messages: unknown[], end: number, scope?: string) => string;
}

const flag = (name: string, fallback: number): number => Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const messages = (JSON.parse(requestBody()) as { messages: unknown[] }).messages;
let serial = 0;

function entry(build: Build): unknown {
  serial++;
  const calls = [0, 1].map((i) => ({ id: `call_${serial}_${i}`, type: 'function', function: { name: i ? 'get_time' : 'get_weather', arguments: `{"city":"Paris ${serial}","unit":"celsius"}` } }));
  return { message: { role: 'assistant', content: null, tool_calls: calls }, prefixFingerprint: build.fingerprint(messages, messages.length, undefined), provider: 'bench', model: 'bench/model', createdAt: Date.now() };
}

async function load(name: string, root: string): Promise<Build> {
  const memory = (await import(pathToFileURL(join(root, 'dist/ledger/memory.js')).href)) as { MemoryLedger: LedgerClass };
  const fp = (await import(pathToFileURL(join(root, 'dist/ledger/fingerprint.js')).href)) as { prefixFingerprint: Build['fingerprint'] };
  const build: Build = { name, Ledger: memory.MemoryLedger, ledger: new memory.MemoryLedger(), fingerprint: fp.prefixFingerprint };
  for (let i = 0; i < 15_000; i++) void build.ledger.record(entry(build)); // full: every record now evicts
  return build;
}

async function main(): Promise<void> {
  const builds: Build[] = [];
  for (const { label, root } of gatewayFlags()) builds.push(await load(label, root));
  const iterations = flag('iterations', 20_000);
  const rounds = flag('rounds', 6);
  const samples = new Map<string, number[]>(builds.map((build) => [build.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const started = process.cpuUsage();
      for (let i = 0; i < iterations; i++) void build.ledger.record(entry(build));
      const used = process.cpuUsage(started);
      samples.get(build.name)?.push(((used.user + used.system) / iterations));
    }
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  process.stdout.write('| build | µs per record (fingerprint + record, full ledger), median |\n|---|---:|\n');
  for (const build of builds) process.stdout.write(`| ${build.name} | ${median(samples.get(build.name) ?? []).toFixed(2)} |\n`);
  // The machine's load drifts between rounds: a ratio within each round (both builds, back to
  // back) is steadier than the ratio of two medians.
  const first = samples.get(builds[0].name) ?? [];
  for (const build of builds.slice(1)) {
    const ratios = (samples.get(build.name) ?? []).map((value, round) => value / first[round]);
    process.stdout.write(`\n${build.name} / ${builds[0].name}, median of per-round ratios: ${median(ratios).toFixed(3)}\n`);
  }
  process.stdout.write('\n| build | heap bytes retained per entry | off-heap bytes per entry | bytes counted per entry |\n|---|---:|---:|---:|\n');
  for (const build of builds) {
    const { retained, offHeap, counted } = await held(build, 20_000);
    process.stdout.write(`| ${build.name} | ${retained.toFixed(0)} | ${offHeap.toFixed(0)} | ${counted.toFixed(0)} |\n`);
  }
}

/** A full GC now (V8's gc extension, exposed for this process without a command-line flag). */
function fullGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

async function held(build: Build, entries: number): Promise<{ retained: number; offHeap: number; counted: number }> {
  build.ledger = new build.Ledger(); // the timed one goes
  const ledger = new build.Ledger({ maxEntries: 1_000_000, maxBytes: 1e12 });
  fullGc();
  const before = process.memoryUsage();
  for (let i = 0; i < entries; i++) await ledger.record(entry(build));
  fullGc();
  const after = process.memoryUsage();
  const retained = (after.heapUsed - before.heapUsed) / entries;
  const offHeap = (after.arrayBuffers - before.arrayBuffers) / entries;
  return { retained, offHeap, counted: (ledger.stats().bytes ?? 0) / ledger.size };
}

main().catch((error: unknown) => {
  process.stderr.write(`ledger-record failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
