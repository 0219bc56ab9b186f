import { spawnChild } from './common.js';
import { compareInProcess, flags, tempConfig } from './inproc.js';
import { gatewayConfig, requestBody } from './scenario.js';

// CPU per JSON request of toolgate builds, in this process, through Fastify's inject (no client
// sockets: the gateway's own work, routing to reply, with the real upstream hop to the bench
// upstream). Builds alternate batch by batch, so load from other processes on the machine hits
// them alike; for A/B of a change when the machine is too busy for bench/json-compare.ts.
//
//   node --import tsx bench/json-inproc.ts --gw=before=<root> --gw=after=<root> [--rounds=10] [--requests=2000]

async function main(): Promise<void> {
  const upstream = await spawnChild('upstream.ts', []);
  const config = tempConfig('json-inproc', gatewayConfig(upstream.url, 'warn'));
  try {
    await compareInProcess({
      unit: 'req',
      rounds: Number(flags('rounds')[0] ?? 10),
      requests: Number(flags('requests')[0] ?? 2000),
      upstream,
      config: config.path,
      body: requestBody(),
      ok: (response) => response.statusCode === 200,
      caption: 'JSON',
    });
  } finally {
    config.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`json-inproc failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
