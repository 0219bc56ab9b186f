// The HTTP shell the reasoning emulators share: a JSON POST body recorded, checked by the
// provider's rule (its refusal sent as is), else answered.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

export interface RuleServerHandlers {
  refusal(body: Obj): { status: number; body: unknown } | null;
  answer(res: ServerResponse, body: Obj): void;
}

/** Listens on 127.0.0.1:<random>; `url` ends in /v1. */
export async function startRuleServer(requests: Obj[], handlers: RuleServerHandlers): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Obj;
        requests.push(body);
        const refused = handlers.refusal(body);
        if (!refused) return handlers.answer(res, body);
        res.writeHead(refused.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(refused.body));
      } catch {
        res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
