import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { validateRequest, type GeminiErrorReply } from '../providers/gemini/emulator/validate.js';
import { weatherScript, type GeminiScript, type ScriptReply } from '../providers/gemini/emulator/weather.js';

// A local stand-in for generativelanguage.googleapis.com/v1beta on 127.0.0.1:0.
// POST /v1beta/models/{model}:generateContent and :streamGenerateContent (?alt=sse, or a JSON
// array without it). Enforces the API key header, the Schema subset, function names, turn
// pairing and (for gemini-3* ids) thought signatures, with the real API's error messages.
// Answers come from a script: by default a weather agent (see ../gemini/emulator/weather.ts).
//
//   const gemini = await startGeminiEmulator();
//   settings = { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: gemini.apiKey, ... }
//   gemini.setScript(() => ({ status: 429, error: { message: 'Quota', status: 'RESOURCE_EXHAUSTED' } }));
//   gemini.requests[0].body.contents ...
//   await gemini.close();

export type { GeminiScript, ScriptInput, ScriptReply } from '../providers/gemini/emulator/weather.js';
export { weatherScript, answer, usage, newSignature } from '../providers/gemini/emulator/weather.js';
export { MESSAGES as GEMINI_MESSAGES } from '../providers/gemini/emulator/validate.js';

export interface GeminiEmulatorOptions {
  /** The key clients must send in x-goog-api-key (default 'test-gemini-key'). */
  apiKey?: string;
  script?: GeminiScript;
  /** Skip request validation (to test how the adapter handles a lenient upstream). */
  lenient?: boolean;
  /** A stream's bytes for its events, as reads (default: one `data:` line each, \r\n line ends, as Gemini). */
  reshape?: (events: readonly Record<string, unknown>[]) => Buffer[];
}

export interface RecordedRequest {
  method: string;
  /** The path without the query string, e.g. /v1beta/models/gemini-2.5-flash:generateContent. */
  path: string;
  query: Record<string, string>;
  model: string;
  stream: boolean;
  /** True when the key came as ?key= (the adapter must never do that). */
  keyInQuery: boolean;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface GeminiEmulator {
  /** e.g. http://127.0.0.1:43121/v1beta */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Every thought signature the emulator handed out. */
  issuedSignatures: Set<string>;
  /** Replace the script; no argument restores the weather agent. */
  setScript(script?: GeminiScript): void;
  close(): Promise<void>;
}

const ROUTE = /^\/v1beta\/((?:models|tunedModels)\/[^/:]+):(generateContent|streamGenerateContent)$/;
const KNOWN_MODEL = /^(gemini|gemma|learnlm)-/;

function error(status: number, rpcStatus: string, message: string, details?: unknown[]): GeminiErrorReply {
  return { status, body: { error: { code: status, message, status: rpcStatus, ...(details ? { details } : {}) } } };
}

export async function startGeminiEmulator(options: GeminiEmulatorOptions = {}): Promise<GeminiEmulator> {
  const apiKey = options.apiKey ?? 'test-gemini-key';
  let script: GeminiScript = options.script ?? weatherScript;
  const requests: RecordedRequest[] = [];
  const issuedSignatures = new Set<string>();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'), res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
        else res.destroy();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void> {
    const parsedUrl = new URL(url, 'http://emulator');
    const query = Object.fromEntries(parsedUrl.searchParams);
    const route = ROUTE.exec(parsedUrl.pathname);
    const resource = route?.[1] ?? '';
    const model = resource.replace(/^(models|tunedModels)\//, '');
    const stream = route?.[2] === 'streamGenerateContent';
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      // reported below
    }
    requests.push({ method, path: parsedUrl.pathname, query, model, stream, keyInQuery: 'key' in query, headers, body });

    const headerKey = headers['x-goog-api-key'];
    const key = typeof headerKey === 'string' ? headerKey : query.key;
    if (!route || method !== 'POST') return reply(res, error(404, 'NOT_FOUND', `Method not found: ${method} ${parsedUrl.pathname}`));
    if (!key) {
      return reply(res, error(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."));
    }
    if (key !== apiKey) {
      return reply(res, error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
      ]));
    }
    if (body === null && raw) return reply(res, error(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unexpected token.\n${raw.slice(0, 40)}\n^`));
    if (!KNOWN_MODEL.test(model)) {
      return reply(res, error(404, 'NOT_FOUND', `${resource} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`));
    }
    if (!options.lenient) {
      const invalid = validateRequest(body, model);
      if (invalid) return reply(res, invalid);
    }
    const answer = await script({ model, stream, body, issuedSignatures });
    if (answer.delayMs) await sleep(answer.delayMs);
    if (res.destroyed) return;
    if (answer.error) return reply(res, { status: answer.status ?? answer.error.code ?? 500, body: { error: { code: answer.status ?? 500, ...answer.error } } });
    if (answer.raw) {
      res.writeHead(answer.status ?? 200, { 'content-type': answer.raw.contentType });
      return void res.end(answer.raw.body);
    }
    const events = answer.events ?? (answer.response ? splitIntoEvents(answer.response) : []);
    if (!stream) return sendJson(res, answer.status ?? 200, answer.response ?? events[events.length - 1] ?? {});
    if (query.alt !== 'sse') return sendJson(res, 200, events);
    await sendEvents(res, events, answer, options.reshape);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1beta`,
    apiKey,
    requests,
    issuedSignatures,
    setScript(next?: GeminiScript) {
      script = next ?? weatherScript;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function sendEvents(res: ServerResponse, events: any[], answer: ScriptReply, reshape?: GeminiEmulatorOptions['reshape']): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  if (reshape) {
    for (const piece of reshape(events)) await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    res.end();
    return;
  }
  for (const [n, event] of events.entries()) {
    if (n > 0 && answer.eventDelayMs) await sleep(answer.eventDelayMs);
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  }
  if (!answer.hang) res.end();
}

/**
 * Streams the way Gemini does: text in a few pieces (one event each), all function calls of a
 * step in one event, finishReason and usage on the last event.
 */
export function splitIntoEvents(response: any): any[] {
  const candidate = response.candidates?.[0];
  if (!candidate) return [response];
  const parts: any[] = candidate.content?.parts ?? [];
  const groups: any[][] = [];
  for (const part of parts) {
    if (typeof part.text === 'string' && !part.thought && part.text.length > 12) {
      const size = Math.ceil(part.text.length / 3);
      for (let i = 0; i < part.text.length; i += size) groups.push([{ text: part.text.slice(i, i + size) }]);
      if (part.thoughtSignature) groups[groups.length - 1][0].thoughtSignature = part.thoughtSignature;
    } else if (part.functionCall && groups.length > 0 && groups[groups.length - 1].every((p) => p.functionCall)) {
      groups[groups.length - 1].push(part);
    } else groups.push([part]);
  }
  if (groups.length === 0) groups.push([]);
  return groups.map((group, n) => {
    const last = n === groups.length - 1;
    const { finishReason, ...rest } = candidate;
    return {
      candidates: [{ ...rest, content: { role: 'model', parts: group }, ...(last && finishReason ? { finishReason } : {}) }],
      usageMetadata: last ? response.usageMetadata : { promptTokenCount: response.usageMetadata?.promptTokenCount ?? 0 },
      modelVersion: response.modelVersion,
      responseId: response.responseId,
    };
  });
}

function reply(res: ServerResponse, answer: GeminiErrorReply): void {
  sendJson(res, answer.status, answer.body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
