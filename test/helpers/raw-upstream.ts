import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawUpstream {
  url: string;
  baseURL: string;
  hits: number;
  /** Resolves with true when a request's connection closed before the handler finished. */
  closedEarly: Promise<boolean>;
  close(): Promise<void>;
}

/** A bare HTTP upstream whose behaviour a test writes by hand (faults, hangs, stalls). */
export async function startRawUpstream(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<RawUpstream> {
  let markClosed: (value: boolean) => void = () => undefined;
  const closedEarly = new Promise<boolean>((resolve) => (markClosed = resolve));
  const state = { hits: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      state.hits += 1;
      res.on('close', () => markClosed(!res.writableFinished));
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    get hits() {
      return state.hits;
    },
    closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sseChunk(content: string, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-raw', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}\n\n`;
}
