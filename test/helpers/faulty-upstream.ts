import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-compatible upstream whose behaviour is picked by the model id in the body, so one
// server plays every fault: `ok`, `reset-before-headers`, `reset-mid-body`, `http-500`,
// `http-503`, `http-429`, `hang-before-headers`, `stall-mid-body`, `non-json-200`, `broken-sse`,
// `every-other` (503 on odd calls), `echo-key-error` / `echo-key-mid-stream` (errors quoting the
// Authorization header). Anything after `@` in the id is ignored.

export interface FaultyUpstream {
  baseURL: string;
  host: string;
  /** Hits per model id. */
  hits: Map<string, number>;
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: any }>;
  total(): number;
  close(): Promise<void>;
}

const completion = (model: string) => ({
  id: 'chatcmpl-faulty',
  object: 'chat.completion',
  created: 1,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});

const chunk = (model: string, content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-faulty', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

function succeed(res: ServerResponse, model: string, stream: boolean): void {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(model)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk(model, 'fi'));
  res.write(chunk(model, 'ne', 'stop'));
  res.write(`data: ${JSON.stringify({ id: 'chatcmpl-faulty', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

function fail(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: status === 429 ? 'requests' : 'server_error', param: null, code: null } }));
}

export async function startFaultyUpstream(): Promise<FaultyUpstream> {
  const hits = new Map<string, number>();
  const requests: FaultyUpstream['requests'] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      let body: any = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // keep {}
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const model = String(body.model ?? '').split('@')[0]; // `http-503@x`: the same fault under another id
      const count = (hits.get(model) ?? 0) + 1;
      hits.set(model, count);
      const stream = body.stream === true;
      switch (model) {
        case 'reset-before-headers':
          return req.socket.destroy();
        case 'reset-mid-body':
          res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
          res.write(stream ? chunk(model, 'Hel') : '{"id":"chatcmpl-x","choices":[{"index":0,');
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        case 'http-500':
          return fail(res, 500, 'The server had an error processing your request.');
        case 'http-503':
          return fail(res, 503, 'The engine is currently overloaded.');
        case 'http-429':
          return fail(res, 429, 'Rate limit reached for requests.', { 'retry-after': '0' });
        case 'hang-before-headers':
          return; // never answers
        case 'stall-mid-body':
          res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
          res.write(stream ? chunk(model, 'Hel') : '{"id":"chatcmpl-x",');
          return; // then nothing
        case 'non-json-200':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<html><body>502 Bad Gateway (proxy)</body></html>');
        case 'broken-sse':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk(model, 'Hel'));
          return void res.end('data: {"id": "x", "choices": [ {oops\n\n');
        case 'every-other':
          return count % 2 === 1 ? fail(res, 503, 'The engine is currently overloaded.') : succeed(res, model, stream);
        case 'echo-key-error':
          return fail(res, 401, `Incorrect API key provided: ${req.headers.authorization ?? ''}.`);
        case 'echo-key-mid-stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk(model, 'Hel'));
          return void res.end(`data: ${JSON.stringify({ error: { message: `key ${req.headers.authorization} revoked`, type: 'server_error' } })}\n\n`);
        default:
          return succeed(res, model, stream);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    host: `127.0.0.1:${port}`,
    hits,
    requests,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
