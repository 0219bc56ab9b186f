import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ChildStartError, type Child, log, procMemory, round, ROOT_DIR, sleep, spawnChild } from './common.js';
import { manyStreams } from './load.js';
import type { Found } from './peers.js';
import { gatewayConfig, modelFor, requestBody, UPSTREAM_PREFIX, type UpstreamVariant } from './scenario.js';
import type { ManyStreamsResult, Mode, Target } from './types.js';

// The servers of one Node version's run and how each target is asked: URL, body and headers per
// upstream variant. Optional targets (Portkey, the inspector row) that cannot start or
// answer wrongly are dropped with a note; the core ones (direct, bare, parsing proxy, toolgate) fail
// the run.

/** The node flags of `npm start` (and the Docker CMD, kept equal): toolgate is measured as it ships. */
export const SHIPPED_NODE_ARGS: string[] = shippedNodeArgs(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8'));

export function shippedNodeArgs(packageJson: string): string[] {
  const start = (JSON.parse(packageJson) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const words = start.split(/\s+/);
  const end = words.indexOf('dist/main.js');
  return words.slice(1, end < 0 ? 1 : end).filter((word) => word.startsWith('--'));
}

export interface ServerSet {
  children: Partial<Record<Target, Child>>;
  notes: string[];
  sanity: Record<string, string>;
}

export interface StartOptions {
  execPath: string;
  impl: 'dist' | 'src';
  upstream: Child;
  tmp: string;
  portkey: Found;
}

type Variant = Mode | 'slow';

const OPTIONAL: readonly Target[] = ['portkey', 'toolgate-inspector', 'toolgate-contract-off'];

/** The request each target gets for a variant of the answer. */
export function endpoint(set: ServerSet, upstream: Child, target: Target, variant: Variant): { url: string; body: string; headers: Record<string, string> } {
  const upstreamVariant: UpstreamVariant = variant;
  const stream = variant !== 'json';
  const prefix = UPSTREAM_PREFIX[upstreamVariant];
  const path = '/v1/chat/completions';
  if (target === 'direct') return { url: `${upstream.url}${prefix}${path}`, body: requestBody({ stream }), headers: {} };
  const child = set.children[target];
  if (!child) throw new Error(`${target} is not running`);
  if (target === 'bare' || target === 'parse') return { url: `${child.url}${prefix}${path}`, body: requestBody({ stream }), headers: {} };
  if (target === 'portkey') {
    const headers = { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.url}${prefix}/v1`, authorization: 'Bearer bench-not-a-secret-key' };
    return { url: `${child.url}${path}`, body: requestBody({ stream }), headers };
  }
  return { url: `${child.url}${path}`, body: requestBody({ stream, model: modelFor(upstreamVariant) }), headers: {} };
}

export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** The shipped config's own defaults, whatever the shell running the bench has set (`${LOG_LEVEL:-info}`). */
const SHIPPED_DEFAULTS_ENV = { LOG_LEVEL: '' };

async function startGateway(options: StartOptions, name: string, overrides: Array<[string[], unknown]> = [], env: Record<string, string> = {}): Promise<Child> {
  const configPath = join(options.tmp, `${name}.yaml`);
  writeFileSync(configPath, gatewayConfig(options.upstream.url, overrides));
  return spawnChild('serve-child.mjs', [configPath, options.impl], { execPath: options.execPath, tsx: options.impl === 'src', env: { ...SHIPPED_DEFAULTS_ENV, ...env }, nodeArgs: SHIPPED_NODE_ARGS });
}

/** A fresh toolgate with the shipped config (the 1,000 streams): its VmHWM covers that test only. */
export function startDefaultGateway(options: StartOptions): Promise<Child> {
  return startGateway(options, 'toolgate-fresh');
}

export function startBare(options: StartOptions, parse = false): Promise<Child> {
  return spawnChild('bare-proxy.mjs', [`${options.upstream.url}/v1`, ...(parse ? ['--parse'] : [])], { execPath: options.execPath });
}

function reasonOf(error: unknown): string {
  if (error instanceof ChildStartError) return error.reason ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

async function startPortkey(options: StartOptions, set: ServerSet): Promise<Child | undefined> {
  if (!options.portkey.ok) {
    set.notes.push(`Portkey row skipped: ${options.portkey.note}`);
    return undefined;
  }
  const entry = options.portkey.path;
  const start = (shim: boolean): Promise<Child> => spawnChild('portkey-child.mjs', [entry, ...(shim ? ['--fetch-shim'] : [])], { execPath: options.execPath });
  try {
    // As installed from npm first: is its streaming broken on this Node (Portkey-AI/gateway#1389)?
    const plain = await start(false);
    const probe = endpoint({ ...set, children: { ...set.children, portkey: plain } }, options.upstream, 'portkey', 'burst');
    const answer = await post(probe.url, probe.body, probe.headers);
    const streams = answer.status === 200 && answer.text.endsWith('data: [DONE]\n\n');
    set.sanity['portkey-as-installed-sse'] = `${answer.status} ${streams ? 'complete' : answer.text.slice(0, 80)}`;
    if (streams) return plain;
    await plain.stop();
    set.notes.push(
      `Portkey ${options.portkey.version} as installed answers streamed requests with ${answer.status} ${answer.text.slice(0, 60)} on this Node (TypeError: immutable, Portkey-AI/gateway#1389/#1550); measured with bench/portkey-child.mjs --fetch-shim (upstream fetch responses re-wrapped with mutable headers, the effect of its proposed fix PR #1390)`,
    );
    return await start(true);
  } catch (error) {
    set.notes.push(`Portkey row skipped: could not start (${reasonOf(error)})`);
    return undefined;
  }
}

export async function startServers(options: StartOptions, withFeatures: boolean, withPortkey: boolean): Promise<ServerSet> {
  const set: ServerSet = { children: {}, notes: [], sanity: {} };
  set.children.bare = await startBare(options);
  set.children.parse = await startBare(options, true);
  set.children.toolgate = await startGateway(options, 'toolgate');
  // One switch flipped beside the shipped config per row: the inspector on, the tool contract off.
  const switches = [['toolgate-inspector', 'inspector', true], ['toolgate-contract-off', 'contract', false]] as const;
  for (const [target, section, enabled] of withFeatures ? switches : []) {
    try {
      set.children[target] = await startGateway(options, target, [[[section, 'enabled'], enabled]]);
    } catch (error) {
      set.notes.push(`${section} row skipped: config \`${section}: { enabled: ${enabled} }\` rejected (${reasonOf(error)})`);
    }
  }
  if (withPortkey) {
    const portkey = await startPortkey(options, set);
    if (portkey) set.children.portkey = portkey;
  }
  return set;
}

/** Every target answers what we think it answers (a 4xx would be "fast" too). Drops failing optional ones. */
export async function checkSanity(set: ServerSet, upstream: Child, targets: readonly Target[]): Promise<Target[]> {
  const kept: Target[] = [];
  for (const target of targets) {
    const variants: Variant[] = ['json', 'burst', 'paced'];
    const problems: string[] = [];
    for (const variant of variants) {
      const { url, body, headers } = endpoint(set, upstream, target, variant);
      const answer = await post(url, body, headers).catch((error: unknown) => ({ status: 0, headers: {} as Record<string, unknown>, text: String(error) }));
      const sse = variant === 'burst' || variant === 'paced';
      const complete = sse ? answer.text.endsWith('data: [DONE]\n\n') : true;
      const ok = answer.status === 200 && complete && answer.text.includes('"tool_calls"') && answer.text.includes('get_weather');
      const mode = String(answer.headers['x-toolgate-tool-mode'] ?? '-');
      const repairs = String(answer.headers['x-toolgate-repairs'] ?? '-');
      set.sanity[`${target}-${variant}`] = `${answer.status}${sse ? ` events=${answer.text.split('\n\n').length - 1}` : ''} tool_calls=${ok}${target.startsWith('toolgate') ? ` tool-mode=${mode} repairs=${repairs}` : ''}`;
      if (!ok) {
        const events = answer.text.split('\n\n').length - 1;
        const what = sse ? `${events} events${complete ? '' : ', no data: [DONE]'}, ends …${JSON.stringify(answer.text.slice(-60))}` : answer.text.slice(0, 120);
        problems.push(`${variant}: ${answer.status}, ${what}`);
      }
    }
    if (problems.length === 0) kept.push(target);
    else if (OPTIONAL.includes(target)) set.notes.push(`${target} row skipped: sanity check failed (${problems.join('; ')})`);
    else if (target.startsWith('toolgate')) {
      // The gateway under test answering wrongly is a finding, not a bench failure: it is measured
      // anyway (its broken answers count as errors) and the report says so first.
      set.notes.push(`**${target} FAILED its sanity check** (measured anyway; broken answers count as errors): ${problems.join('; ')}`);
      kept.push(target);
    } else throw new Error(`sanity check failed for ${target}: ${problems.join('; ')}`);
  }
  const inspector = set.children['toolgate-inspector'];
  if (inspector && kept.includes('toolgate-inspector')) {
    const api = await request(`${inspector.url}/v1/toolgate/requests`).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }));
    set.sanity['toolgate-inspector-api'] = `GET /v1/toolgate/requests → ${api.status}`;
    if (api.status !== 200) set.notes.push(`inspector: config accepted but GET /v1/toolgate/requests answered ${api.status}; the row may not record anything`);
  }
  log(`sanity: ${Object.entries(set.sanity).map(([k, v]) => `${k}: ${v}`).join(' | ')}`);
  return kept;
}

export async function stopAll(set: ServerSet): Promise<void> {
  for (const child of Object.values(set.children).reverse()) await child?.stop().catch(() => undefined);
}

/**
 * `count` slow streams opened at once through a fresh `server` (toolgate, or a bare passthrough that
 * routes by the upstream's /slow prefix), after 20 warm-up streams: the run, RSS idle / peak / after,
 * and how many streams the upstream had open at once. `onTick` runs every 100 ms meanwhile.
 */
export async function manyStreamsThrough(
  server: Child,
  bare: boolean,
  upstream: Child,
  count: number,
  onTick?: () => void,
): Promise<Omit<ManyStreamsResult, 'target' | 'slowChunks' | 'slowMs'>> {
  const url = bare ? `${server.url}/slow/v1/chat/completions` : `${server.url}/v1/chat/completions`;
  const body = requestBody({ model: 'bench-slow', stream: true });
  await Promise.all(Array.from({ length: 20 }, () => post(url, body)));
  await sleep(200);
  const idle = procMemory(server.pid).rssMb;
  await upstream.ask({ type: 'reset-stats' }, 'reset-stats');
  let peak = idle;
  const result = await manyStreams(url, body, count, () => {
    peak = Math.max(peak, procMemory(server.pid).rssMb);
    onTick?.();
  });
  const { peakStreams } = await upstream.ask<{ peakStreams: number }>({ type: 'stats' }, 'stats');
  await sleep(500);
  const memory = procMemory(server.pid);
  return {
    ...result,
    idleRssMb: round(idle, 1),
    peakRssMb: round(Math.max(peak, memory.rssMb), 1),
    processPeakRssMb: round(memory.peakRssMb, 1),
    afterRssMb: round(memory.rssMb, 1),
    upstreamPeakConcurrent: peakStreams,
  };
}
