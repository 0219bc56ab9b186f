import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Child, flags, log, median, round } from './common.js';

export { flags } from './common.js';

// The in-process A/B harness of bench/json-inproc.ts and bench/stream-inproc.ts: toolgate builds
// loaded into this process (their dist/), each sent the same request through Fastify's inject (no
// client sockets), builds alternated batch by batch so load from other processes hits them alike;
// CPU µs per request from process.cpuUsage, and each build's ratio to the first paired per round.

interface InjectResponse {
  statusCode: number;
  payload: string;
}

export interface Built {
  app: { inject(options: Record<string, unknown>): Promise<InjectResponse>; close(): Promise<void> };
}

export interface InprocRun {
  /** What one request is called in the output (req, stream). */
  unit: string;
  rounds: number;
  requests: number;
  /** The upstream the builds call, and the gateway config that points at it. */
  upstream: Child;
  config: string;
  body: string;
  /** Whether an answer is what the run expects. */
  ok: (response: InjectResponse) => boolean;
  /** The measure's description in the table header. */
  caption: string;
}

/** The values of `--name=value` flags. */

/** The `--gw=label=root` builds to compare. */
export function gatewayFlags(): Array<{ label: string; root: string }> {
  return flags('gw').map((spec) => {
    const [label, root] = spec.split('=');
    return { label, root };
  });
}

export async function load(root: string, configPath: string): Promise<Built> {
  const base = pathToFileURL(join(root, 'dist/')).href;
  const { buildApp } = (await import(`${base}app.js`)) as { buildApp: (loaded: unknown, options: unknown) => Promise<Built> };
  const { parseConfig } = (await import(`${base}config/load.js`)) as { parseConfig: (text: string, env: unknown, path: string) => { config: { logging: { level: string } }; secrets: unknown } };
  const { createLogger } = (await import(`${base}logging.js`)) as { createLogger: (options: unknown) => unknown };
  const loaded = parseConfig(readFileSync(configPath, 'utf8'), process.env, configPath);
  const logger = createLogger({ level: loaded.config.logging.level, secrets: loaded.secrets });
  return buildApp(loaded, { logger });
}

async function batch(built: Built, run: InprocRun, concurrency: number): Promise<number> {
  let left = run.requests;
  let failed = 0;
  const started = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const response = await built.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: run.body });
      if (!run.ok(response)) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(started);
  if (failed > 0) throw new Error(`${failed} ${run.unit}s failed`);
  return (used.user + used.system) / run.requests;
}

/** Writes the gateway config into a temp folder; removed when the run ends. */
export function tempConfig(name: string, yaml: string): { path: string; remove: () => void } {
  const tmp = mkdtempSync(join(os.tmpdir(), `toolgate-${name}-`));
  const path = join(tmp, 'gateway.yaml');
  writeFileSync(path, yaml);
  return { path, remove: () => rmSync(tmp, { recursive: true, force: true }) };
}

/** Loads every build, warms each up, alternates them over the rounds and prints the table. */
export async function compareInProcess(run: InprocRun, digits = 0): Promise<void> {
  const builds: Array<{ label: string; built: Built; us: number[] }> = [];
  try {
    for (const { label, root } of gatewayFlags()) builds.push({ label, built: await load(root, run.config), us: [] });
    for (const build of builds) await batch(build.built, run, 32);
    for (let r = 0; r < run.rounds; r++) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        build.us.push(await batch(build.built, run, 32));
        log(`r${r} ${build.label}: ${round(build.us[build.us.length - 1], digits)} µs CPU/${run.unit}`);
      }
    }
  } finally {
    for (const build of builds) await build.built.app.close();
    await run.upstream.stop();
  }
  const first = builds[0];
  process.stdout.write(`| build | CPU µs/${run.unit} (${run.caption}, median of ${run.rounds} × ${run.requests}, in-process inject, c=32) | ratio to ${first.label} (paired per round) |\n|---|---:|---:|\n`);
  for (const build of builds) {
    const ratio = median(build.us.map((us, i) => us / first.us[i]));
    process.stdout.write(`| ${build.label} | ${round(median(build.us), digits)} | ${round(ratio, 3)} |\n`);
  }
}
