import { parseArgs } from 'node:util';
import { buildApp } from '../app.js';
import { listenHost, startupSummary } from '../auth/startup.js';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { errors } from '../errors.js';
import { cutOpenStreams } from '../http/sse.js';
import { chooseLogFormat, createLogger } from '../logging.js';
import { resolveConfigPath } from '../config/paths.js';

// `toolgate [serve]` and `node dist/main.js`: config → app → listen; SIGTERM/SIGINT drain in-flight
// requests, bounded by server.shutdownGraceMs.

export const SERVE_OPTIONS = {
  config: { type: 'string', short: 'c' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
} as const;

/** How long the error events of cut streams get to reach the sockets before the process exits. */
const STREAM_FLUSH_MS = 250;

export interface ServeOptions {
  config?: string;
  port?: string;
  host?: string;
}

function portOf(flag: string | undefined, env: NodeJS.ProcessEnv, configured: number): number {
  const raw = flag ?? env.PORT;
  if (raw === undefined || raw === '') return configured;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`${flag === undefined ? 'PORT' : '--port'} must be a port number, got '${raw}'`);
  }
  return port;
}

export async function serve(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const configPath = resolveConfigPath(options.config, env);
  const loaded = loadConfigFile(configPath, env);
  const { config } = loaded;
  // Gateway keys, the metrics key and a Redis password are scrubbed like provider keys.
  const format = chooseLogFormat(config.logging.format, env, process.stdout.isTTY === true);
  const logger = createLogger({ level: config.logging.level, secrets: loaded.secrets, format });

  // --host counts as HOST; beyond loopback without gateway keys only when anonymous access is allowed.
  const hostEnv = options.host ? { ...env, HOST: options.host } : env;
  const host = listenHost(config, hostEnv, (message, detail) => logger.warn(detail ?? {}, message));
  const port = portOf(options.port, env, config.server.port);

  const { app } = await buildApp(loaded, { logger });
  const address = await app.listen({ host, port });
  logger.info(
    {
      address,
      config: configPath,
      ...startupSummary(config),
    },
    `toolgate listening on ${address}`,
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.server.shutdownGraceMs }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      // Streams still open get a terminal error event (shutting_down) first, not a cut mid-answer.
      const streams = cutOpenStreams(errors.shuttingDown());
      logger.warn({ streamsEnded: streams }, 'in-flight requests did not finish in time; open streams ended with an error event; exiting');
      setTimeout(() => process.exit(1), STREAM_FLUSH_MS);
    }, config.server.shutdownGraceMs);
    force.unref();
    app.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Parses serve's flags (the whole command line of dist/main.js) and starts; exits 1 on a bad start. */
export function serveFromArgs(args: string[]): void {
  let options: ServeOptions;
  try {
    options = parseArgs({ args, options: SERVE_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`toolgate: ${(error as Error).message}\nRun toolgate --help for usage.\n`);
    process.exit(2);
  }
  serve(options).catch((error: unknown) => {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`toolgate failed to start: ${message}\n`);
    process.exit(1);
  });
}
