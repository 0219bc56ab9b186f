/* global process, setTimeout */
import { createServer } from 'node:net';
// The child side of bench/common.ts spawnChild, in plain JavaScript for the measured children:
// announce {type:'ready', url} over IPC, stop cleanly on {type:'stop'}.

/**
 * @param {string} url
 * @param {Record<string, unknown>} extra
 * @param {() => Promise<void>} stop
 */
export function childReady(url, extra, stop) {
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), 10_000);
    force.unref();
    stop().finally(() => process.exit(0));
  };
  process.on('message', (message) => {
    const type = message && typeof message === 'object' ? message.type : undefined;
    if (type === 'stop') shutdown();
  });
  process.on('disconnect', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.send?.({ type: 'ready', url, ...extra });
}

/** A port free on 127.0.0.1 right now (for a child that must pick its own before it starts). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
