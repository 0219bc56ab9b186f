import { spawnChild } from './common.js';
import { compareInProcess, flags, tempConfig } from './inproc.js';
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

/** The gateway in front of bench/stream-load.ts's upstream, burst or paced. */
function configFor(upstreamUrl: string, mode: string): string {
  return ['server:', '  host: 127.0.0.1', '  port: 0', 'logging:', '  level: warn', 'providers:', '  up:', '    type: openai-compatible', `    baseUrl: ${upstreamUrl}/${mode}/v1`, '    apiKey: bench-not-a-secret-key', 'models:', '  bench-model:', '    provider: up', '    model: bench-model', ''].join('\n');
}

async function main(): Promise<void> {
  const mode = flags('mode')[0] ?? 'burst';
  const upstream = await spawnChild('stream-load.ts', ['--upstream']);
  const config = tempConfig('stream-inproc', configFor(upstream.url, mode));
  const request = JSON.parse(requestBody()) as Record<string, unknown>;
  try {
    await compareInProcess(
      {
        unit: 'stream',
        rounds: Number(flags('rounds')[0] ?? 8),
        requests: Number(flags('streams')[0] ?? 1500),
        upstream,
        config: config.path,
        body: JSON.stringify({ ...request, model: 'bench-model', stream: true }),
        ok: (response) => response.statusCode === 200 && response.payload.endsWith('data: [DONE]\n\n'),
        caption: mode,
      },
      1,
    );
  } finally {
    config.remove();
  }
}

await main();
