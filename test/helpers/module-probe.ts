import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

export interface ModuleProbe {
  /** Every ES module resolved so far whose URL contains the match (call after settled()). */
  resolved: string[];
  /** Resolves once every resolution so far has been reported. */
  settled(): Promise<void>;
  /** Whether a CommonJS module whose path contains the match is in require.cache. */
  required(): boolean;
}

/**
 * Watches a package being loaded, as an ES module (a resolve hook) or through require (the
 * CommonJS cache). Register it before importing the modules under test (dynamic imports).
 */
export function probeModules(match: string): ModuleProbe {
  const resolved: string[] = [];
  let flushed: () => void = () => undefined;
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (message: string) => (message === 'flush' ? flushed() : resolved.push(message)));
  port1.unref();
  register('./load-probe.mjs', import.meta.url, { data: { port: port2, match }, transferList: [port2] });
  return {
    resolved,
    async settled() {
      // The port is unref'd so it never holds the process open; while waiting for the marker it must.
      port1.ref();
      const arrived = new Promise<void>((resolve) => (flushed = resolve));
      await import('toolgate-probe:flush' as string);
      await arrived;
      port1.unref();
    },
    required: () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes(match)),
  };
}
