import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, log, median, round, spawnChild, flags } from './common.js';
import { SHIPPED_NODE_ARGS } from './servers.js';
import { jsonLoad, pacedJsonLoad, streamLoad } from './load.js';
import { gatewayConfig, requestBody } from './scenario.js';

// What each request leaves in V8's old generation, from V8's own GC trace (--trace-gc-nvp) of each
// build as `npm start` runs it: bytes promoted by scavenges per request, mark-compacts per minute and
// the old generation's growth between them, at an open-loop moderate load (JSON, or paced SSE with
// --mode=paced) after `--heavy` s of closed-loop load. Builds alternated over rounds, each in its
// own process for the whole run. The bare passthrough with --bare.
//
//   node --import tsx bench/old-gen.ts --gw=base=<root> --gw=new=<root> [--mode=json|paced]
//        [--rate=1500] [--duration=15] [--rounds=3] [--heavy=4] [--node=<binary>] [--node-args="..."] [--bare]
//        [--args-<label>="--flag ..."] (node flags for one build only: the same root twice for a flag A/B)
//        [--same-timeouts=<label>] (that build's providers with streamIdleTimeoutMs = timeoutMs)
//        [--snapshot=<path prefix>] (a heap snapshot of each build halfway through each round)
//        [--sites=N] (the N largest allocation sites of what survived scavenges, V8's sampling heap profiler in the build)
//        [--show-v8] (V8's other stdout lines, e.g. with --node-args=--trace-pretenuring)
//        [--model=<toolgate model>] (the measured requests' model, e.g. bench-text-xml: a Qwen3-Coder
//        text call to parse; bench/scenario.ts names them; toolgate builds only, not with --bare)

interface Gc {
  kind: string;
  promoted: number;
  pause: number;
}
interface Target {
  label: string;
  proc: ChildProcess;
  url: string;
  gcs: Gc[];
  rows: Array<{ grownPerReq: number; promotedPerReq: number; mcPerMin: number; mcPauseMs: number; requests: number }>;
}

/** A child whose stdout (V8's nvp lines) this process reads. */
async function start(label: string, script: string, args: string[], execPath: string, nodeArgs: string[]): Promise<Target> {
  const proc = spawn(execPath, [...nodeArgs, '--import', `${BENCH_DIR}old-gen-probe.mjs`, ...(nodeArgs.includes('--trace-gc') ? [] : ['--trace-gc-nvp']), `${BENCH_DIR}${script}`, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const target: Target = { label, proc, url: '', gcs: [], rows: [] };
  let rest = '';
  proc.stdout?.setEncoding('utf8').on('data', (text: string) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (process.argv.includes('--show-v8') && !/gc=s\b/.test(line)) process.stderr.write(`${label}: ${line}\n`);
      const kind = /\bgc=(\w+)/.exec(line)?.[1] ?? (/: Scavenge/.test(line) ? 's' : /: Mark-Compact/.test(line) ? 'mc' : undefined);
      if (!kind) continue;
      target.gcs.push({ kind, promoted: Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0), pause: Number(/\bpause=([\d.]+)/.exec(line)?.[1] ?? 0) });
    }
  });
  target.url = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${label} exited ${code}`)));
    proc.on('message', (message: { type?: string; url?: string }) => {
      if (message.type === 'ready' && message.url) resolve(message.url);
    });
  });
  return target;
}

/** The old spaces' growth since the last ask, bytes by space (bench/old-gen-probe.mjs). */
function ask(target: Target, type = 'old-gen', reply = 'old-gen', extra: Record<string, unknown> = {}): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    const onMessage = (message: { type?: string; growth?: Record<string, number>; sites?: Record<string, number> }): void => {
      if (message.type !== reply) return;
      target.proc.off('message', onMessage);
      resolve(message.growth ?? message.sites ?? {});
    };
    target.proc.on('message', onMessage);
    target.proc.send({ type, ...extra });
  });
}

async function main(): Promise<void> {
  const mode = flags('mode')[0] ?? 'json';
  const sse = mode === 'paced';
  const rate = Number(flags('rate')[0] ?? (sse ? 500 : 1500));
  const durationS = Number(flags('duration')[0] ?? 15);
  const rounds = Number(flags('rounds')[0] ?? 3);
  const heavyS = Number(flags('heavy')[0] ?? 4);
  const execPath = flags('node')[0] ?? process.execPath;
  const sitesTop = Number(flags('sites')[0] ?? 0);
  const extra = (flags('node-args')[0] ?? '').split(/\s+/).filter(Boolean);
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-old-gen-'));
  const upstream = await spawnChild('upstream.ts', []);
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayConfig(upstream.url, 'warn'));
  const path = '/v1/chat/completions';
  const targets: Target[] = [];
  try {
    if (process.argv.includes('--bare')) targets.push(await start('bare', 'bare-proxy.mjs', [`${upstream.url}/v1`], execPath, []));
    for (const spec of flags('gw')) {
      const [label = '', root = ''] = spec.split('=');
      // --same-timeouts=<label>: that build's providers with streamIdleTimeoutMs = timeoutMs (undici then
      // refreshes one parser timer per connection instead of making a new one at each phase).
      const own = flags('same-timeouts').includes(label) ? join(tmp, `${label}.yaml`) : config;
      if (own !== config) writeFileSync(own, gatewayConfig(upstream.url, 'warn').replaceAll('    apiKey: bench-not-a-secret-key', '    apiKey: bench-not-a-secret-key\n    streamIdleTimeoutMs: 600000'));
      targets.push(await start(label, 'gateway-child.mjs', [own, 'dist', root], execPath, [...SHIPPED_NODE_ARGS, ...extra, ...flags(`args-${label}`).flatMap((value) => value.split(/\s+/)).filter(Boolean)]));
    }
    for (const target of heavyS > 0 ? targets : []) {
      await jsonLoad(target.url + path, requestBody(), 32, heavyS);
      const burst = target.label === 'bare' ? [`${target.url}/burst${path}`, requestBody({ stream: true })] : [target.url + path, requestBody({ stream: true, model: 'bench-burst' })];
      await streamLoad(burst[0] ?? '', burst[1] ?? '', 32, heavyS);
      await streamLoad(target.url + path, requestBody({ stream: true }), 32, heavyS);
    }
    log(`${mode} at ${rate}/s, ${durationS} s × ${rounds} rounds, heavy ${heavyS} s, node ${execPath}`);
    const model = flags('model')[0];
    if (model !== undefined && process.argv.includes('--bare')) throw new Error('--model routes toolgate builds only: not with --bare');
    const body = requestBody({ stream: sse, ...(model !== undefined ? { model } : {}) });
    for (let round_ = 0; round_ < rounds; round_++) {
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(i + round_) % targets.length] as Target;
        target.gcs.length = 0;
        await ask(target);
        if (sitesTop > 0) await ask(target, 'sites-start', 'sites-started');
        const snapshot = flags('snapshot')[0];
        if (snapshot) setTimeout(() => void ask(target, 'snapshot', 'snapshot-written', { path: `${snapshot}-${target.label}-r${round_}.heapsnapshot` }), (durationS * 1000) / 2);
        const run = sse ? await streamLoad(target.url + path, body, 32, durationS, rate) : await pacedJsonLoad(target.url + path, body, 32, durationS, rate);
        const requests = 'streams' in run ? run.streams : run.requests;
        await new Promise((resolve) => setTimeout(resolve, 200)); // the last nvp lines
        const growth = await ask(target);
        if (sitesTop > 0) {
          const sites = Object.entries(await ask(target, 'sites-stop', 'sites')).sort((a, b) => b[1] - a[1]);
          const total = sites.reduce((sum, [, bytes]) => sum + bytes, 0);
          log(`  ${target.label} sampled survivors ${round(total / Math.max(1, requests), 0)} B/req; largest sites:`);
          for (const [site, bytes] of sites.slice(0, sitesTop)) process.stderr.write(`${round(bytes / Math.max(1, requests), 0).toString().padStart(7)} B  ${site}\n`);
        }
        const grown = Object.values(growth).reduce((sum, bytes) => sum + bytes, 0);
        const bySpace = Object.entries(growth).map(([name, bytes]) => `${name} ${round(bytes / Math.max(1, requests), 0)}`).join(', ');
        const promoted = target.gcs.filter((gc) => gc.kind === 's').reduce((sum, gc) => sum + gc.promoted, 0);
        const marks = target.gcs.filter((gc) => gc.kind === 'mc' || gc.kind === 'ms');
        const row = { grownPerReq: round(grown / Math.max(1, requests), 0), promotedPerReq: round(promoted / Math.max(1, requests), 0), mcPerMin: round((marks.length * 60) / durationS, 1), mcPauseMs: round(median(marks.map((gc) => gc.pause)), 2), requests };
        target.rows.push(row);
        log(`r${round_} ${target.label}: ${requests} requests; old generation grew ${row.grownPerReq} B/req (${round(grown / durationS / 1e6, 2)} MB/s: ${bySpace}); scavenges promoted ${row.promotedPerReq} B/req (${round(promoted / durationS / 1e6, 2)} MB/s); mark-compacts ${row.mcPerMin}/min, median pause ${row.mcPauseMs} ms; scavenges ${target.gcs.filter((gc) => gc.kind === 's').length}`);
      }
    }
    process.stdout.write('| target | old-gen growth B/req (median, spread) | promoted B/req (median, spread) | mark-compacts /min (median, spread) |\n|---|---:|---:|---:|\n');
    for (const target of targets) {
      const g = target.rows.map((r) => r.grownPerReq);
      const p = target.rows.map((r) => r.promotedPerReq);
      const m = target.rows.map((r) => r.mcPerMin);
      process.stdout.write(`| ${target.label} | ${median(g)} (${Math.min(...g)}…${Math.max(...g)}) | ${median(p)} (${Math.min(...p)}…${Math.max(...p)}) | ${median(m)} (${Math.min(...m)}…${Math.max(...m)}) |\n`);
    }
  } finally {
    for (const target of targets) {
      target.proc.send({ type: 'stop' });
      await new Promise((resolve) => target.proc.once('exit', resolve));
    }
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`old-gen failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
