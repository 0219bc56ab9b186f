import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type Child, log, round, spawnChild } from './common.js';
import { MANY_STREAM_EVENT_MS } from './scenario.js';
import { manyStreamsThrough, startBare, startDefaultGateway } from './servers.js';

// The 1,000-concurrent-streams phase of `npm run bench` alone, for A/B of what moves peak RSS:
// toolgate (as `npm start` runs it, plus --node-args) and the bare passthrough, each a fresh process,
// alternated over rounds; idle and peak RSS (VmHWM), errors, how many upstream streams were open at
// once, and the V8 heap at the peak. The upstream streams 20 events BENCH_SLOW_MS apart (default as
// the full bench: MANY_STREAM_EVENT_MS).
//
//   node --import tsx bench/many-streams.ts [--rounds=2] [--count=1000] [--node=<binary>]
//        [--targets=toolgate,bare] [--args-<target>="--flag ..."] [--env-<target>="K=V ..."]

function flag(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main(): Promise<void> {
  const rounds = Number(flag('rounds') ?? 2);
  const count = Number(flag('count') ?? 1000);
  const execPath = flag('node') ?? process.execPath;
  const targets = (flag('targets') ?? 'toolgate,bare').split(',');
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-many-'));
  const upstream = await spawnChild('upstream.ts', [], { env: { BENCH_SLOW_CHUNKS: '20', BENCH_SLOW_MS: process.env.BENCH_SLOW_MS ?? String(MANY_STREAM_EVENT_MS) } });
  const options = { execPath, impl: 'dist' as const, upstream, tmp, portkey: { ok: false as const, note: 'not used' } };
  const rows: string[] = [];
  try {
    for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
      for (const target of targets) {
        const nodeArgs = (flag(`args-${target}`) ?? '').split(' ').filter(Boolean);
        const env = Object.fromEntries((flag(`env-${target}`) ?? '').split(' ').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
        Object.assign(process.env, env);
        let server: Child;
        try {
          server = target.startsWith('bare') ? await startBare(options, false, nodeArgs) : await startDefaultGateway(options, nodeArgs);
        } finally {
          for (const key of Object.keys(env)) delete process.env[key];
        }
        try {
          let atPeak: NodeJS.MemoryUsage | undefined;
          let asking = false;
          const measured = await manyStreamsThrough(server, target.startsWith('bare'), upstream, count, () => {
            if (asking) return;
            asking = true;
            void server
              .ask<NodeJS.MemoryUsage>({ type: 'memory' }, 'memory', 2000)
              .then((usage) => {
                if (!atPeak || usage.rss > atPeak.rss) atPeak = usage;
              })
              .catch(() => undefined)
              .finally(() => (asking = false));
          });
          const line = `| ${roundIndex} | ${target} | ${measured.completed}/${count} | ${measured.errors + measured.incomplete} | ${measured.idleRssMb} | ${Math.max(measured.peakRssMb, measured.processPeakRssMb)} | ${measured.afterRssMb} | ${measured.upstreamPeakConcurrent} | ${mb(atPeak?.heapTotal)} | ${mb(atPeak?.heapUsed)} | ${mb(atPeak?.external)} | ${mb(atPeak?.arrayBuffers)} |`;
          rows.push(line);
          log(line);
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`| round | target | completed | errors | idle MB | peak MB | after MB | upstream streams at once | at the sampled peak: heap total / used, external, array buffers MB |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n${rows.join('\n')}\n`);
}

function mb(bytes: number | undefined): string {
  return bytes === undefined ? '–' : String(round(bytes / 1048576, 1));
}

main().catch((error: unknown) => {
  process.stderr.write(`many-streams failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
