import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log, median, round, spawnChild } from './common.js';
import { gatewayConfig, requestBody } from './scenario.js';

// CPU per JSON request of toolgate builds, in this process, through Fastify's inject (no client
// sockets: the gateway's own work, routing to reply, with the real upstream hop to the bench
// upstream). Builds alternate batch by batch, so load from other processes on the machine hits
// them alike; for A/B of a change when the machine is too busy for bench/json-compare.ts.
//
//   node --import tsx bench/json-inproc.ts --gw=before=<root> --gw=after=<root> [--rounds=10] [--requests=2000]

interface Built {
  app: { inject(options: Record<string, unknown>): Promise<{ statusCode: number }>; close(): Promise<void> };
}

function flags(name: string): string[] {
  return process.argv.filter((arg) => arg.startsWith(`--${name}=`)).map((arg) => arg.slice(name.length + 3));
}

async function load(root: string, configPath: string): Promise<Built> {
  const base = pathToFileURL(join(root, 'dist/')).href;
  const { buildApp } = (await import(`${base}app.js`)) as { buildApp: (loaded: unknown, options: unknown) => Promise<Built> };
  const { parseConfig } = (await import(`${base}config/load.js`)) as { parseConfig: (text: string, env: unknown, path: string) => { config: { logging: { level: string } }; secrets: unknown } };
  const { createLogger } = (await import(`${base}logging.js`)) as { createLogger: (options: unknown) => unknown };
  const { readFileSync } = await import('node:fs');
  const loaded = parseConfig(readFileSync(configPath, 'utf8'), process.env, configPath);
  const logger = createLogger({ level: loaded.config.logging.level, secrets: loaded.secrets });
  return buildApp(loaded, { logger });
}

async function batch(built: Built, body: string, requests: number, concurrency: number): Promise<number> {
  let left = requests;
  let failed = 0;
  const started = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const response = await built.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: body });
      if (response.statusCode !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(started);
  if (failed > 0) throw new Error(`${failed} requests failed`);
  return (used.user + used.system) / requests;
}

async function main(): Promise<void> {
  const gateways = flags('gw').map((spec) => {
    const [label, root] = spec.split('=');
    return { label, root };
  });
  const rounds = Number(flags('rounds')[0] ?? 10);
  const requests = Number(flags('requests')[0] ?? 2000);
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-json-inproc-'));
  const upstream = await spawnChild('upstream.ts', []);
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayConfig(upstream.url, 'warn'));
  const body = requestBody();
  const builds: Array<{ label: string; built: Built; us: number[] }> = [];
  try {
    for (const { label, root } of gateways) builds.push({ label, built: await load(root, config), us: [] });
    for (const build of builds) await batch(build.built, body, requests, 32);
    for (let r = 0; r < rounds; r++) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        build.us.push(await batch(build.built, body, requests, 32));
        log(`r${r} ${build.label}: ${round(build.us[build.us.length - 1], 0)} µs CPU/req`);
      }
    }
  } finally {
    for (const build of builds) await build.built.app.close();
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const first = builds[0];
  process.stdout.write(`| build | CPU µs/req (median of ${rounds} × ${requests}, in-process inject, c=32) | ratio to ${first.label} (paired per round) |\n|---|---:|---:|\n`);
  for (const build of builds) {
    const ratio = median(build.us.map((us, i) => us / first.us[i]));
    process.stdout.write(`| ${build.label} | ${round(median(build.us), 0)} | ${round(ratio, 3)} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`json-inproc failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
