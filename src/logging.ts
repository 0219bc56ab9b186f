import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { createRedactor } from './config/secrets.js';

// pino logs: JSON lines for machines, or pino-pretty's readable lines for a person at a terminal.
// Two layers keep secrets out of both: path redaction for the fields we know (Authorization, API
// key headers, apiKey), and a scrubber on the printed text that replaces any configured secret
// value wherever it appears — in messages, errors, URLs, anything.

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["api-key"]',
  'headers.authorization',
  'headers["x-goog-api-key"]',
  '*.apiKey',
  'apiKey',
  'key',
];

export type LogFormat = 'json' | 'pretty';
export type LogFormatSetting = LogFormat | 'auto';

export interface LoggerOptions {
  level: string;
  secrets: string[];
  destination?: NodeJS.WritableStream;
  /** Default json. */
  format?: LogFormat;
}

/**
 * The format of the gateway's log lines: LOG_FORMAT (json | pretty) when set, else the config's
 * `logging.format`; `auto` (the default) is pretty when stdout is a terminal, JSON otherwise (a
 * container, a pipe, a log shipper).
 */
export function chooseLogFormat(setting: LogFormatSetting, env: NodeJS.ProcessEnv, stdoutIsTTY: boolean): LogFormat {
  const fromEnv = env.LOG_FORMAT?.trim().toLowerCase();
  if (fromEnv === 'json' || fromEnv === 'pretty') return fromEnv;
  if (setting !== 'auto') return setting;
  return stdoutIsTTY ? 'pretty' : 'json';
}

export function createScrubbingStream(secrets: string[], destination: NodeJS.WritableStream): NodeJS.WritableStream {
  if (!secrets.some((secret) => secret.length >= 4)) return destination;
  const redact = createRedactor(secrets);
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      destination.write(redact(typeof chunk === 'string' ? chunk : chunk.toString('utf8')), callback);
    },
  });
}

/**
 * pino-pretty as a stream in this thread, writing to `destination`: the scrubber sees the text as
 * printed. Loaded only when chosen: a gateway logging JSON never loads it.
 */
function prettyStream(destination: NodeJS.WritableStream): NodeJS.WritableStream {
  const build = createRequire(import.meta.url)('pino-pretty') as (options: PrettyOptions) => NodeJS.WritableStream;
  const colorize = destination === process.stdout && process.stdout.isTTY === true;
  return build({ destination, colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', sync: true });
}

export function createLogger(options: LoggerOptions): Logger {
  const printed = createScrubbingStream(options.secrets, options.destination ?? process.stdout);
  const destination = options.format === 'pretty' ? prettyStream(printed) : printed;
  return pino(
    {
      name: 'toolgate',
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      base: { service: 'toolgate' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

interface BindableLogger<L> {
  child(bindings: Record<string, unknown>): L;
}

/**
 * Fields on every later line of a request's logger (tracing: trace_id, span_id, trace_flags). A
 * per-request pino child gets them in place (setBindings: no second child per request); the shared
 * root logger, or a logger without setBindings, gets a child instead.
 */
export function withBindings<L extends BindableLogger<L>>(log: L, bindings: Record<string, string>, root: unknown): L {
  const pinoChild = log as L & { setBindings?: (bindings: Record<string, unknown>) => void };
  if (log === root || typeof pinoChild.setBindings !== 'function') return log.child(bindings);
  pinoChild.setBindings(bindings);
  return log;
}
