import { Writable } from 'node:stream';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/logging.js';

// Like test/helpers/gateway.ts, but the logger scrubs the same secrets main.ts gives it
// (provider keys + gateway keys, metrics key, Redis password), and state comes from the config.

export interface ReliableGateway extends BuiltApp {
  url: string;
  logs: string[];
  close(): Promise<void>;
}

export async function startReliableGateway(yaml: string, env: Record<string, string> = {}, logLevel = 'info'): Promise<ReliableGateway> {
  const loaded = parseConfig(yaml, env, 'test-config');
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(line);
      callback();
    },
  });
  const logger = createLogger({ level: logLevel, secrets: loaded.secrets, destination: sink });
  const built = await buildApp(loaded, { logger });
  const url = await built.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...built, url, logs, close: () => built.app.close() };
}

export interface Posted {
  status: number;
  text: string;
  json: any;
  headers: Headers;
}

export async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Posted> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers };
}

export function isOpenAIError(json: any): boolean {
  const error = json?.error;
  return (
    typeof error === 'object' && error !== null && typeof error.message === 'string' && typeof error.type === 'string' && 'param' in error && 'code' in error
  );
}
