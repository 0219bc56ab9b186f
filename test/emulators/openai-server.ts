// An OpenAI API emulator on 127.0.0.1:<random port> for tests: POST /v1/chat/completions (JSON and SSE)
// and GET /v1/models[/:id]. It checks the bearer key like OpenAI (401, masked key), refuses bad bodies
// with OpenAI's exact 400s (openai-rules.ts), records every request, and answers from a script.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatRequest } from '../../src/api/chat-types.js';
import {
  fail,
  incorrectApiKey,
  invalidJsonBody,
  invalidUrl,
  missingApiKey,
  modelNotFound,
  type RuleFailure,
} from './openai-errors.js';
import { checkChatRequest, type CheckOptions } from './openai-rules.js';
import {
  buildChunks,
  buildCompletion,
  randomId,
  resolveReply,
  weatherScript,
  type ChunkOptions,
  type Reply,
  type Script,
} from './openai-script.js';

export type { Reply, Script, ToolCallReply } from './openai-script.js';
export { weatherScript } from './openai-script.js';
import { reshapedStream, streamShapesFromEnv } from '../helpers/stream-mutator.js';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. (`any` so tests can read
   *  `requests[0].body.model` without casts.) */
  body: any;
}

export interface OpenAIEmulatorOptions extends ChunkOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Defaults to the weather agent (`weatherScript`). */
  script?: Script;
  /** Delay before each SSE chunk after the first, for slow-stream tests. */
  chunkDelayMs?: number;
  /** Models listed by GET /v1/models. When `enforceModels` is true, chat with another model answers 404. */
  models?: string[];
  enforceModels?: boolean;
  /** Run checkChatRequest on chat bodies (default true). */
  validate?: boolean;
  rules?: CheckOptions;
}

export interface OpenAIEmulator {
  /** Base URL ending in /v1, e.g. `http://127.0.0.1:43121/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Chat requests that reached the script so far (the next call's `callIndex`). */
  readonly calls: number;
  setScript(fn: Script | undefined): void;
  close(): Promise<void>;
}

const SERVER_ERROR = fail(
  'The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.',
  null,
  null,
  500,
  'server_error',
);

function baseHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-request-id': randomId('req_', 32),
    'openai-processing-ms': '12',
    'openai-version': '2020-10-01',
    ...extra,
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...baseHeaders(headers) });
  res.end(text);
}

const sendFailure = (res: ServerResponse, f: RuleFailure): void => sendJson(res, f.status, f.body);

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function authFailure(header: string | undefined, expected: string): RuleFailure | null {
  const match = /^Bearer\s+(.*)$/i.exec(header ?? '');
  if (!match || match[1].trim() === '') return missingApiKey();
  return match[1].trim() === expected ? null : incorrectApiKey(match[1].trim());
}

export async function startOpenAIEmulator(options: OpenAIEmulatorOptions = {}): Promise<OpenAIEmulator> {
  const requests: RecordedRequest[] = [];
  let script: Script = options.script ?? weatherScript;
  let calls = 0;
  const models = options.models ?? ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'];
  const created = 1_715_367_049;
  // With TOOLGATE_TEST_STREAM_SHAPES=<seed> (npm run test:shapes), every stream goes out in another
  // shape that says the same thing (test/helpers/stream-mutator.ts), a different one per stream.
  const shapes = streamShapesFromEnv();

  async function stream(res: ServerResponse, body: ChatRequest, reply: Parameters<typeof resolveReply>[1]): Promise<void> {
    const chunks = buildChunks(body, resolveReply(body, reply), options);
    res.writeHead(200, baseHeaders({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' }));
    let closed = false;
    res.on('close', () => (closed = true));
    const shaped = shapes === undefined ? undefined : reshapedStream(chunks as unknown as Record<string, unknown>[], shapes());
    if (shaped !== undefined) {
      for (const piece of shaped) {
        if (closed) return;
        await new Promise<void>((resolve) => res.write(piece, () => resolve()));
      }
      res.end();
      return;
    }
    for (let i = 0; i < chunks.length; i++) {
      if (i > 0 && options.chunkDelayMs) await sleep(options.chunkDelayMs);
      if (closed) return;
      res.write(`data: ${JSON.stringify(chunks[i])}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  async function chat(res: ServerResponse, raw: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return sendFailure(res, invalidJsonBody());
    }
    if (options.validate !== false) {
      const refused = checkChatRequest(parsed, options.rules);
      if (refused) return sendFailure(res, refused);
    }
    const body = parsed as ChatRequest;
    if (options.enforceModels && !models.includes(body.model)) return sendFailure(res, modelNotFound(body.model));
    let reply: Reply;
    try {
      reply = await script(body, calls++);
    } catch {
      return sendFailure(res, SERVER_ERROR);
    }
    if ('error' in reply) return sendJson(res, reply.error.status, reply.error.body, reply.error.headers);
    if ('raw' in reply) {
      const text = typeof reply.raw.body === 'string' ? reply.raw.body : JSON.stringify(reply.raw.body);
      res.writeHead(reply.raw.status, { 'content-type': 'application/json', ...reply.raw.headers });
      res.end(text);
      return;
    }
    if (body.stream === true) return stream(res, body, reply);
    sendJson(res, 200, buildCompletion(body, resolveReply(body, reply)));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    let recorded: unknown = undefined;
    if (raw.length > 0) {
      try {
        recorded = JSON.parse(raw);
      } catch {
        recorded = raw;
      }
    }
    requests.push({ method, path, headers: req.headers, body: recorded });
    if (options.apiKey !== undefined) {
      const refused = authFailure(req.headers.authorization, options.apiKey);
      if (refused) return sendFailure(res, refused);
    }
    const model = /^\/v1\/models\/(.+)$/.exec(path);
    if (method === 'POST' && path === '/v1/chat/completions') return chat(res, raw);
    if (method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'openai' })) });
    }
    if (method === 'GET' && model) {
      const id = decodeURIComponent(model[1]);
      return models.includes(id) ? sendJson(res, 200, { id, object: 'model', created, owned_by: 'openai' }) : sendFailure(res, modelNotFound(id));
    }
    sendFailure(res, invalidUrl(method, path));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendFailure(res, SERVER_ERROR);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get calls() {
      return calls;
    },
    setScript(fn) {
      script = fn ?? weatherScript;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
