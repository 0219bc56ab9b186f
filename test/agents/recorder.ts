// A recording proxy in front of toolgate, on 127.0.0.1: the agent talks to it, it forwards every
// request unchanged and keeps, per exchange, what toolgate received and what it answered (status,
// headers, body, streams included), so that a run can check "no 4xx or 5xx" and a failure explains itself.
import { appendFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Bodies are kept up to this size each (the rest is cut, and says so). */
const KEEP_BYTES = 512 * 1024;

export interface Exchange {
  method: string;
  url: string;
  status: number;
  requestHeaders: IncomingHttpHeaders;
  request: string;
  responseHeaders: IncomingHttpHeaders;
  response: string;
}

export interface Recorder {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

function keep(chunks: Buffer[]): string {
  const all = Buffer.concat(chunks);
  return all.length <= KEEP_BYTES ? all.toString('utf8') : `${all.subarray(0, KEEP_BYTES).toString('utf8')}… [${all.length - KEEP_BYTES} more bytes]`;
}

const SECRET_HEADERS = /^(authorization|x-api-key|x-goog-api-key|cookie)$/i;
const scrub = (headers: IncomingHttpHeaders): IncomingHttpHeaders => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADERS.test(k) ? '[redacted]' : v]));

/** `target`: toolgate's base URL (http://127.0.0.1:<port>); `logFile()`: where each exchange goes (JSON lines). */
export async function startRecorder(target: () => string, logFile: () => string): Promise<Recorder> {
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const requestChunks: Buffer[] = [];
    const responseChunks: Buffer[] = [];
    const upstream = new URL(target());
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk: Buffer) => {
        responseChunks.push(chunk);
        res.write(chunk);
      });
      answer.on('end', () => {
        res.end();
        const exchange: Exchange = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          status: answer.statusCode ?? 0,
          requestHeaders: scrub(req.headers),
          request: keep(requestChunks),
          responseHeaders: answer.headers,
          response: keep(responseChunks),
        };
        exchanges.push(exchange);
        appendFileSync(logFile(), `${JSON.stringify(exchange)}\n`);
      });
    });
    forward.on('error', (err) => {
      exchanges.push({ method: req.method ?? 'GET', url: req.url ?? '/', status: 599, requestHeaders: scrub(req.headers), request: keep(requestChunks), responseHeaders: {}, response: `proxy: ${String(err)}` });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.on('data', (chunk: Buffer) => {
      requestChunks.push(chunk);
      forward.write(chunk);
    });
    req.on('end', () => forward.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
