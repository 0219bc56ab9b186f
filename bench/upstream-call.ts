import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flags, gatewayFlags, load, tempConfig } from './inproc.js';
import { gatewayConfig, modelFor, requestBody } from './scenario.js';

// The chat pipeline's upstream call alone (callUpstream: fallback chain, attempts, adapter,
// JSON read and check), with the adapter's HTTP pool answering from memory (a fixed upstream
// answer handed to undici's response handler at dispatch, so the build's own reading of it is
// measured): CPU µs per call, 32 at a time, builds alternated over rounds, each build's dist/
// loaded in this process. For A/B of the call chain's own cost, which a whole request's noise hides.
//
//   node --import tsx bench/upstream-call.ts --gw=before=<root> --gw=after=<root> [--rounds=8] [--calls=20000]

type Fn = (...args: unknown[]) => unknown;
interface Build {
  label: string;
  call: () => Promise<unknown>;
}

const ANSWER = Buffer.from(JSON.stringify({
  id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm',
  choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
}));

const RAW_HEADERS = [Buffer.from('content-type'), Buffer.from('application/json'), Buffer.from('content-length'), Buffer.from(String(ANSWER.length))];

async function prepare(label: string, root: string, configPath: string): Promise<Build> {
  const built = (await load(root, configPath)) as unknown as { gateway: Record<string, unknown> & { router: { resolve(name: string): Record<string, unknown> & { provider: Record<string, unknown>; upstreamModel: string } }; ledger: { forScope(scope: string): unknown }; log: unknown } };
  const base = pathToFileURL(join(root, 'dist/')).href;
  const step = (await import(`${base}pipeline/upstream-step.js`)) as { callUpstream: Fn };
  const info = (await import(`${base}pipeline/request-info.js`)) as { newRequestInfo: Fn };
  const telemetry = (await import(`${base}pipeline/telemetry.js`)) as { RequestTelemetry: new (...args: unknown[]) => unknown };
  const gateway = built.gateway;
  const target = gateway.router.resolve(modelFor('json'));
  // The adapter's HTTP client answers from memory, at the pool's dispatch: no socket, the same
  // bytes every time, and undici's handler (request()'s, or the build's own) runs as it would.
  const pool = (target.provider as unknown as { client: { pool: { dispatch: Fn } } }).client.pool;
  pool.dispatch = (_options: unknown, handler: unknown) => {
    const h = handler as { onConnect: Fn; onHeaders: Fn; onData: Fn; onComplete: Fn };
    queueMicrotask(() => {
      h.onConnect(() => undefined, null);
      h.onHeaders(200, RAW_HEADERS, () => undefined, 'OK');
      h.onData(ANSWER);
      h.onComplete([]);
    });
    return true;
  };
  const request = JSON.parse(requestBody()) as Record<string, unknown>;
  const requestInfo = info.newRequestInfo('chat_completions', false);
  const context = { upstreamModel: target.upstreamModel, signal: new AbortController().signal, requestId: 'r', log: gateway.log, ledger: gateway.ledger.forScope(''), forwardHeaders: {} };
  const scope = { gateway, context, telemetry: new telemetry.RequestTelemetry(gateway, requestInfo, request, undefined), info: requestInfo };
  // The tenant's work budgets, as runChat looks them up (the anonymous scope).
  const budgets = (gateway.workBudgets as { forScope(scope: string): unknown }).forScope('');
  return { label, call: () => step.callUpstream(request, target, scope, budgets) as Promise<unknown> };
}

async function batch(build: Build, calls: number): Promise<number> {
  let left = calls;
  const started = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (left-- > 0) await build.call();
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  const config = tempConfig('upstream-call', gatewayConfig('http://127.0.0.1:9', 'warn'));
  try {
    const builds: Build[] = [];
    for (const { label, root } of gatewayFlags()) builds.push(await prepare(label, root, config.path));
    const rounds = Number(flags('rounds')[0] ?? 8);
    const calls = Number(flags('calls')[0] ?? 20_000);
    for (const build of builds) await batch(build, 2000); // warm
    const samples = new Map<string, number[]>(builds.map((build) => [build.label, []]));
    const ratios = new Map<string, number[]>(builds.map((build) => [build.label, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      const got = new Map<string, number>();
      for (const build of order) got.set(build.label, await batch(build, calls));
      for (const build of builds) {
        samples.get(build.label)?.push(got.get(build.label) ?? 0);
        ratios.get(build.label)?.push((got.get(build.label) ?? 0) / (got.get(builds[0].label) ?? 1));
      }
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    process.stdout.write(`| build | CPU µs per upstream call (median of ${rounds} × ${calls}) | ratio to ${builds[0].label} (paired per round) |\n|---|---:|---:|\n`);
    for (const build of builds) process.stdout.write(`| ${build.label} | ${median(samples.get(build.label) ?? []).toFixed(2)} | ${median(ratios.get(build.label) ?? []).toFixed(3)} |\n`);
  } finally {
    config.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`upstream-call failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
