import { startGateway, type TestGateway } from './gateway.js';

// The reliability tests' name for the one test gateway (test/helpers/gateway.ts): the logger scrubs
// the secrets main.ts gives it (provider keys, gateway keys, metrics key, Redis password), and state
// comes from the config.

export type ReliableGateway = TestGateway;

export function startReliableGateway(yaml: string, env: Record<string, string> = {}, logLevel = 'info'): Promise<ReliableGateway> {
  return startGateway({ yaml, env, logLevel });
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
