/* global process, setTimeout */
// The child side of bench/common.ts spawnChild, in plain JavaScript for the measured children:
// announce {type:'ready', url} over IPC, answer {type:'memory'}, stop cleanly on {type:'stop'}.

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
    if (type === 'memory') process.send?.({ type: 'memory', ...process.memoryUsage() });
  });
  process.on('disconnect', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.send?.({ type: 'ready', url, ...extra });
}
