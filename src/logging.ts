import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

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
  const active = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  if (active.length === 0) return destination;
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      let line = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const secret of active) if (line.includes(secret)) line = line.split(secret).join('[REDACTED]');
      destination.write(line, callback);
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
