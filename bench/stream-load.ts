import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { childReady } from './child-ready.mjs';
import { type Child, loadAverage, log, median, procCpuMs, round, sleep, spawnChild } from './common.js';
import { streamLoad } from './load.js';
import { requestBody } from './scenario.js';

// A focused SSE run (the streaming half of issue 17): toolgate builds side by side with the bare
// Fastify+undici passthrough, at 32 connections, on two upstreams:
//   burst — all 22 events (role, content tokens, a native tool call in fragments, finish, usage,
//           [DONE]) in one write, as a fast upstream with a long answer delivers them;
//   paced — one event per tick (setImmediate), as bench/upstream.ts sends them.
// Figures per target: streams/s, CPU µs per stream (from /proc), and µs per event above bare.
//
//   node --import tsx bench/stream-load.ts [--root=<project root> ...] [--rounds=3] [--duration=4]
//        [--modes=burst,paced] [--content=N] [--chunks=N] [--profile=<dir>]
//
// Each root needs a built dist/ (npm run build there); default: this checkout. --content=N makes
// the answer N prose tokens and no tool call (the fast path's best case). --profile writes a V8 CPU
// profile of each toolgate process (and of the bare proxy: bare-<mode>) into <dir> (summarize with bench/cpuprofile.ts). 127.0.0.1 only.

function flag(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

// ---------------------------------------------------------------- upstream (child role)

const ID = 'chatcmpl-bench0001';
const MODEL = 'bench-model';
const ARGS = '{"city":"Paris","unit":"celsius"}';

function frame(payload: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): Buffer {
  return frame({ id: ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
}

const WORDS = 'Let me look up the current weather in Paris for you, one moment please.'.split(/(?= )/);

/** The same answer shape as bench/upstream.ts: role, prose, a native call in fragments, finish. */
function toolFrames(count: number): Buffer[] {
  const middle = count - 3;
  const contentCount = Math.max(1, Math.floor(middle / 2));
  const argCount = Math.max(1, middle - contentCount);
  const frames = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < contentCount; i++) frames.push(chunk({ content: WORDS[i % WORDS.length] }));
  frames.push(chunk({ tool_calls: [{ index: 0, id: 'call_bench00000000000000001', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
  const size = Math.ceil(ARGS.length / argCount);
  for (let i = 0; i < argCount; i++) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS.slice(i * size, (i + 1) * size) } }] }));
  frames.push(chunk({}, 'tool_calls'));
  return frames;
}

function proseFrames(count: number): Buffer[] {
  const frames = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < count; i++) frames.push(chunk({ content: WORDS[i % WORDS.length] }));
  frames.push(chunk({}, 'stop'));
  return frames;
}

function serveUpstream(): void {
  const content = Number(process.env.STREAM_CONTENT ?? 0);
  const base = content > 0 ? proseFrames(content) : toolFrames(Number(process.env.STREAM_CHUNKS ?? 20));
  const usage = frame({ id: ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL, choices: [], usage: { prompt_tokens: 412, completion_tokens: 23, total_tokens: 435 } });
  const all = [...base, usage, Buffer.from('data: [DONE]\n\n')];
  const burst = Buffer.concat(all);
  const paced = (res: ServerResponse): void => {
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (i === all.length - 1) return void res.end(all[i]);
      res.write(all[i++]);
      setImmediate(next);
    };
    next();
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      if ((req.url ?? '').startsWith('/paced/')) paced(res);
      else res.end(burst);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    childReady(`http://127.0.0.1:${port}`, { events: all.length }, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  });
}

// ---------------------------------------------------------------- runner

function gatewayYaml(upstreamUrl: string): string {
  return [
    'server:',
    '  host: 127.0.0.1',
    '  port: 0',
    'logging:',
    '  level: warn',
    'providers:',
    ...['burst', 'paced'].flatMap((mode) => [`  ${mode}:`, '    type: openai-compatible', `    baseUrl: ${upstreamUrl}/${mode}/v1`, '    apiKey: bench-not-a-secret-key']),
    'models:',
    ...['burst', 'paced'].flatMap((mode) => [`  bench-${mode}:`, `    provider: ${mode}`, '    model: bench-model']),
    '',
  ].join('\n');
}

interface Target {
  label: string;
  child: Child;
  /** Per mode: streams/s and CPU µs per stream, one entry per round. */
  runs: Map<string, Array<{ rps: number; cpuUs: number; errors: number }>>;
}

async function main(): Promise<void> {
  const roots = process.argv.filter((arg) => arg.startsWith('--root=')).map((arg) => arg.slice('--root='.length));
  if (roots.length === 0) roots.push(new URL('..', import.meta.url).pathname);
  const rounds = Number(flag('rounds') ?? 3);
  const durationS = Number(flag('duration') ?? 4);
  const modes = (flag('modes') ?? 'burst,paced').split(',');
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-stream-'));
  const env: Record<string, string> = {};
  if (flag('content')) env.STREAM_CONTENT = flag('content') as string;
  if (flag('chunks')) env.STREAM_CHUNKS = flag('chunks') as string;
  const upstream = await spawnChild('stream-load.ts', ['--upstream'], { env });
  const events = Number(upstream.ready.events);
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayYaml(upstream.url));
  const targets: Target[] = [];
  const bare = new Map<string, Child>();
  try {
    const profileDir = flag('profile');
    const profiled = (name: string): string[] => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`, '--cpu-prof-interval=250'] : []);
    for (const mode of modes) bare.set(mode, await spawnChild('bare-proxy.mjs', [`${upstream.url}/${mode}/v1`], { nodeArgs: profiled(`bare-${mode}`) }));
    targets.push({ label: 'bare', child: bare.get(modes[0]) as Child, runs: new Map() });
    for (const [index, root] of roots.entries()) {
      const label = roots.length > 1 ? `toolgate ${String.fromCharCode(65 + index)}` : 'toolgate';
      targets.push({ label, child: await spawnChild('gateway-child.mjs', [config, 'dist', root], { nodeArgs: profiled(`stream-${index}`) }), runs: new Map() });
    }
    await sleep(300);
    const path = '/v1/chat/completions';
    const childFor = (target: Target, mode: string): Child => (target.label === 'bare' ? (bare.get(mode) as Child) : target.child);
    const bodyFor = (target: Target, mode: string): string => requestBody({ stream: true, ...(target.label === 'bare' ? {} : { model: `bench-${mode}` }) });
    for (const mode of modes) for (const target of targets) await streamLoad(childFor(target, mode).url + path, bodyFor(target, mode), 32, 1);
    log(`stream-load: ${rounds} rounds × ${durationS} s, ${events} events per stream, load average ${loadAverage().join(' ')}`);
    for (let r = 0; r < rounds; r++) {
      for (const mode of modes) {
        for (const target of r % 2 === 0 ? targets : [...targets].reverse()) {
          const child = childFor(target, mode);
          const before = procCpuMs(child.pid);
          const run = await streamLoad(child.url + path, bodyFor(target, mode), 32, durationS);
          const cpuUs = ((procCpuMs(child.pid) - before) * 1000) / Math.max(1, run.streams);
          const list = target.runs.get(mode) ?? [];
          list.push({ rps: run.rps, cpuUs, errors: run.errors + run.incomplete });
          target.runs.set(mode, list);
          log(`r${r} ${mode} ${target.label}: ${run.rps} streams/s, ${round(cpuUs, 0)} µs CPU/stream, errors ${run.errors + run.incomplete}`);
        }
      }
    }
  } finally {
    for (const target of targets) if (target.label !== 'bare') await target.child.stop().catch(() => undefined);
    for (const child of bare.values()) await child.stop().catch(() => undefined);
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const lines = [
    `# SSE at 32 connections — ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}`,
    '',
    `${rounds} rounds × ${durationS} s alternated, medians; ${events} events per stream; load average at end ${loadAverage().join(' / ')}.`,
    ...roots.map((root, index) => `- ${targets[index + 1].label}: \`${root}\``),
    '',
    '| upstream | target | streams/s | ×bare | CPU µs/stream | µs/event above bare | errors |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const mode of modes) {
    const bareRuns = targets[0].runs.get(mode) ?? [];
    for (const target of targets) {
      const runs = target.runs.get(mode) ?? [];
      const ratio = median(runs.map((run, i) => run.rps / (bareRuns[i]?.rps ?? NaN)));
      const cpu = median(runs.map((run) => run.cpuUs));
      const perEvent = (cpu - median(bareRuns.map((run) => run.cpuUs))) / events;
      const errors = runs.reduce((sum, run) => sum + run.errors, 0);
      lines.push(`| ${mode} | ${target.label} | ${round(median(runs.map((run) => run.rps)), 0)} | ${round(ratio, 2)} | ${round(cpu, 0)} | ${target.label === 'bare' ? '–' : round(perEvent, 1)} | ${errors} |`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv.includes('--upstream')) serveUpstream();
else {
  main().catch((error: unknown) => {
    process.stderr.write(`stream-load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
