// An egress trap: each agent runs with HTTP_PROXY / HTTPS_PROXY pointing here (NO_PROXY: loopback), so
// any request an agent tries to make beyond 127.0.0.1 (telemetry, update checks, downloads) arrives
// here instead, is refused with 403, and is recorded: the run then fails, naming the host.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EgressTrap {
  url: string;
  /** Hosts (host:port) asked for since the last take(). */
  take(): string[];
  close(): Promise<void>;
}

export async function startEgressTrap(logFile: () => string): Promise<EgressTrap> {
  let attempts: string[] = [];
  const record = (target: string): void => {
    attempts.push(target);
    appendFileSync(logFile(), `${JSON.stringify({ at: new Date().toISOString(), target })}\n`);
  };
  const server = createServer((req, res) => {
    // A plain-HTTP request through a proxy names the whole URL.
    record(req.url ?? '?');
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('egress refused by the toolgate agent suite\n');
  });
  server.on('connect', (req, socket) => {
    record(req.url ?? '?');
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = attempts;
      attempts = [];
      return taken;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
