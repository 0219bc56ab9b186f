import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log, median, round, spawnChild } from './common.js';
import { requestBody } from './scenario.js';

// CPU per streamed chat answer of toolgate builds, in this process, through Fastify's inject (no
// client sockets: the gateway's own work from routing to the last SSE frame, with the real upstream
// hop to bench/stream-load.ts's upstream: 22 events, burst or paced). Builds alternate batch by
// batch in one process, so load from other processes on the machine hits them alike; for A/B of a
// change to the stream path when the machine is too busy for bench/stream-load.ts. Absolute figures
// are above the socket-level ones: inject's response destroys itself at its end (an abort of the
// client signal, a write-after-destroy error per stream), the same cost for every build.
//
//   node --import tsx bench/stream-inproc.ts --gw=before=<root> --gw=after=<root> [--rounds=8]
//        [--streams=1500] [--mode=burst|paced]

interface Built {
  app: { inject(options: Record<string, unknown>): Promise<{ statusCode: number; payload: string }>; close(): Promise<void> };
}

function flags(name: string): string[] {
  return process.argv.filter((arg) => arg.startsWith(`--${name}=`)).map((arg) => arg.slice(name.length + 3));
}

async function load(root: string, configPath: string): Promise<Built> {
  const base = pathToFileURL(join(root, 'dist/')).href;
  const { buildApp } = (await import(`${base}app.js`)) as { buildApp: (loaded: unknown, options: unknown) => Promise<Built> };
  const { parseConfig } = (await import(`${base}config/load.js`)) as { parseConfig: (text: string, env: unknown, path: string) => { config: { logging: { level: string } }; secrets: unknown } };
  const { createLogger } = (await import(`${base}logging.js`)) as { createLogger: (options: unknown) => unknown };
  const loaded = parseConfig(readFileSync(configPath, 'utf8'), process.env, configPath);
  const logger = createLogger({ level: loaded.config.logging.level, secrets: loaded.secrets });
  return buildApp(loaded, { logger });
}

async function batch(built: Built, body: string, streams: number, concurrency: number): Promise<number> {
  let left = streams;
  let failed = 0;
  const started = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const response = await built.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: body });
      if (response.statusCode !== 200 || !response.payload.endsWith('data: [DONE]\n\n')) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(started);
  if (failed > 0) throw new Error(`${failed} streams failed`);
  return (used.user + used.system) / streams;
}

async function main(): Promise<void> {
  const gateways = flags('gw').map((spec) => {
    const [label, root] = spec.split('=');
    return { label, root };
  });
  const rounds = Number(flags('rounds')[0] ?? 8);
  const streams = Number(flags('streams')[0] ?? 1500);
  const mode = flags('mode')[0] ?? 'burst';
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-stream-inproc-'));
  const upstream = await spawnChild('stream-load.ts', ['--upstream']);
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, ['server:', '  host: 127.0.0.1', '  port: 0', 'logging:', '  level: warn', 'providers:', '  up:', '    type: openai-compatible', `    baseUrl: ${upstream.url}/${mode}/v1`, '    apiKey: bench-not-a-secret-key', 'models:', '  bench-model:', '    provider: up', '    model: bench-model', ''].join('\n'));
  const request = JSON.parse(requestBody()) as Record<string, unknown>;
  const body = JSON.stringify({ ...request, model: 'bench-model', stream: true });
  const builds: Array<{ label: string; built: Built; us: number[] }> = [];
  try {
    for (const { label, root } of gateways) builds.push({ label, built: await load(root, config), us: [] });
    for (const build of builds) await batch(build.built, body, streams, 32);
    for (let r = 0; r < rounds; r++) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        build.us.push(await batch(build.built, body, streams, 32));
        log(`r${r} ${build.label}: ${round(build.us[build.us.length - 1], 1)} µs CPU/stream`);
      }
    }
  } finally {
    for (const build of builds) await build.built.app.close();
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const first = builds[0];
  process.stdout.write(`| build | CPU µs/stream (${mode}, median of ${rounds} × ${streams}, in-process inject, c=32) | ratio to ${first.label} (paired per round) |\n|---|---:|---:|\n`);
  for (const build of builds) {
    const ratio = median(build.us.map((us, i) => us / first.us[i]));
    process.stdout.write(`| ${build.label} | ${round(median(build.us), 1)} | ${round(ratio, 3)} |\n`);
  }
}

await main();
