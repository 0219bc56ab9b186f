import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type Child, loadAverage, log, median, procCpuMs, round, sleep, spawnChild, flags } from './common.js';
import { hrtimeUs, profileMarkdown, summarizeCpuProfile } from './cpuprofile.js';
import { jsonLoad, pacedJsonLoad, streamLoad } from './load.js';
import { gatewayConfig, requestBody } from './scenario.js';

// The JSON path side by side, in one run: the bare passthrough, the JSON-parsing proxy and one
// or more toolgate builds (e.g. before and after a change), alternated over rounds. Per target:
// req/s and CPU µs per request at 32 connections, ratios to bare and to the parsing proxy paired
// with the same round, and (for toolgate builds) added p99 at a moderate paced load and added
// TTFB p50 at c=1, both over the bare proxy.
//
//   node --import tsx bench/json-compare.ts --gw=before=/path/to/root --gw=after=/path/to/root
//        [--rounds=5] [--duration=4] [--profile=<label>] [--no-latency] [--connections=32]
//
// Each root needs a built dist/. With --profile=<label> that build (or bare / parse) also runs once with --cpu-prof
// and its top functions are printed (the .cpuprofile is kept in the OS temp folder). 127.0.0.1 only.

interface Target {
  label: string;
  child: Child;
  kind: 'bare' | 'parse' | 'toolgate';
  root?: string;
  rows: Array<{ round: number; rps: number; cpuUs: number; p99: number }>;
  paced: number[];
  ttfb: number[];
}

async function main(): Promise<void> {
  const gateways = flags('gw').map((spec) => {
    const [label, root] = spec.split('=');
    if (!label || !root || !existsSync(join(root, 'dist', 'app.js'))) throw new Error(`--gw=${spec}: need label=root with a built dist/`);
    return { label, root };
  });
  if (gateways.length === 0) throw new Error('usage: json-compare.ts --gw=label=root [--gw=...] [--rounds=N] [--duration=S] [--profile=label]');
  const rounds = Number(flags('rounds')[0] ?? 5);
  const durationS = Number(flags('duration')[0] ?? 4);
  const profileLabel = flags('profile')[0];
  const latency = !process.argv.includes('--no-latency');
  const connections = Number(flags('connections')[0] ?? 32);
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-json-compare-'));
  const upstream = await spawnChild('upstream.ts', []);
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayConfig(upstream.url, 'warn'));
  const targets: Target[] = [];
  const path = '/v1/chat/completions';
  const body = requestBody();
  try {
    const fresh = { rows: [], paced: [], ttfb: [] };
    targets.push({ label: 'bare', kind: 'bare', child: await spawnChild('bare-proxy.mjs', [`${upstream.url}/v1`]), ...structuredClone(fresh) });
    targets.push({ label: 'parse', kind: 'parse', child: await spawnChild('bare-proxy.mjs', [`${upstream.url}/v1`, '--parse']), ...structuredClone(fresh) });
    for (const { label, root } of gateways) {
      targets.push({ label, kind: 'toolgate', root, child: await spawnChild('gateway-child.mjs', [config, 'dist', root]), ...structuredClone(fresh) });
    }
    for (const target of targets) await jsonLoad(target.child.url + path, body, connections, 2);
    log(`${rounds} rounds × ${durationS} s; load average ${loadAverage().join(' ')}`);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const before = procCpuMs(target.child.pid);
        const run = await jsonLoad(target.child.url + path, body, connections, durationS);
        const cpuUs = ((procCpuMs(target.child.pid) - before) * 1000) / Math.max(1, run.requests);
        target.rows.push({ round: r, rps: run.rps, cpuUs, p99: run.p99 });
        log(`r${r} ${target.label}: ${run.rps} req/s, ${round(cpuUs, 0)} µs CPU/req, p99 ${run.p99} ms${run.errors + run.non2xx ? `, ${run.errors + run.non2xx} errors` : ''}`);
      }
      if (!latency) continue;
      for (const target of order) {
        if (target.kind === 'parse') continue;
        // Moderate load: a quarter of the bare proxy's closed-loop rate, paced; then c=1.
        const bareRps = median(targets[0].rows.map((row) => row.rps));
        const paced = await pacedJsonLoad(target.child.url + path, body, 32, Math.max(2, durationS - 1), Math.round(bareRps / 4));
        target.paced.push(paced.p99);
        const single = await streamLoad(target.child.url + path, body, 1, Math.max(2, durationS - 1), undefined, false);
        target.ttfb.push(single.ttfbP50);
      }
    }
    if (profileLabel) {
      const gateway = gateways.find((g) => g.label === profileLabel);
      if (!gateway && profileLabel !== 'bare' && profileLabel !== 'parse') throw new Error(`--profile=${profileLabel}: no such --gw label`);
      const dir = join(os.tmpdir(), 'json-compare-profiles');
      mkdirSync(dir, { recursive: true });
      const name = `${profileLabel}.cpuprofile`;
      const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`, '--cpu-prof-interval=250'];
      const child = gateway
        ? await spawnChild('gateway-child.mjs', [config, 'dist', gateway.root], { nodeArgs })
        : await spawnChild('bare-proxy.mjs', [`${upstream.url}/v1`, ...(profileLabel === 'parse' ? ['--parse'] : [])], { nodeArgs });
      await jsonLoad(child.url + path, body, 32, 2);
      const window = { startUs: hrtimeUs(), endUs: 0 };
      const { requests } = await jsonLoad(child.url + path, body, 32, 8);
      window.endUs = hrtimeUs();
      await child.stop();
      await sleep(200);
      const summary = summarizeCpuProfile(join(dir, name), 40, window);
      summary.requests = requests;
      summary.cpuUsPerRequest = round((summary.busyMs * 1000) / Math.max(1, requests), 0);
      log(`profile kept: ${join(dir, name)} (bench/cpuprofile.ts <file> --callers=<name> digs into it)`);
      process.stdout.write(`${profileMarkdown(`${profileLabel}, JSON c=32, 8 s`, summary, 40)}\n`);
    }
  } finally {
    for (const target of targets) await target.child.stop().catch(() => undefined);
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }

  const paired = (target: Target, peer: Target): number =>
    round(median(target.rows.map((row) => row.rps / (peer.rows.find((p) => p.round === row.round)?.rps ?? NaN))), 2);
  const [bare, parse] = targets;
  const lines = [
    `# JSON path — ${new Date().toISOString().slice(0, 16)} UTC, ${rounds} rounds × ${durationS} s alternated, medians; load average at end ${loadAverage().join(' / ')}`,
    '',
    `| target | req/s c=${connections} | CPU µs/req | ×bare | ×parsing proxy | p99 ms c=${connections} | added p99 ms (paced, ¼ of bare) | added TTFB p50 ms c=1 |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...targets.map((t) => {
      const added = (values: number[], base: number[]): string => (values.length && base.length ? String(round(median(values) - median(base), 2)) : '');
      return `| ${t.label} | ${round(median(t.rows.map((r) => r.rps)), 0)} | ${round(median(t.rows.map((r) => r.cpuUs)), 0)} | ${t === bare ? '1.00' : paired(t, bare)} | ${t.kind === 'toolgate' ? paired(t, parse) : ''} | ${round(median(t.rows.map((r) => r.p99)), 2)} | ${t.kind === 'toolgate' ? added(t.paced, bare.paced) : ''} | ${t.kind === 'toolgate' ? added(t.ttfb, bare.ttfb) : ''} |`;
    }),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch((error: unknown) => {
  process.stderr.write(`json-compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
