import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { createRedactor } from './secrets.js';

// pino JSON logs. Two layers keep secrets out: path redaction for the fields we know
// (Authorization, API key headers, apiKey), and a scrubber on the output that replaces any
// configured secret value wherever it appears — in messages, errors, URLs, anything.

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

export interface LoggerOptions {
  level: string;
  secrets: string[];
  destination?: NodeJS.WritableStream;
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

export function createLogger(options: LoggerOptions): Logger {
  const destination = createScrubbingStream(options.secrets, options.destination ?? process.stdout);
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
