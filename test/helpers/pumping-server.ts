import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

// An upstream for tests of capped whole-body reads: `handler` answers each request, and writes
// of 16 KiB chunks go through `pump`, which counts the bytes written and stops when the client
// went away (so a test sees how far the server got before the reader cut the connection).

const CHUNK = Buffer.alloc(16 * 1024, 'x');

export interface PumpingServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Bytes the server got written before its response finished or the connection closed. */
  written: () => number;
  connections: () => number;
  /** Resolves when the latest response finished or its connection closed. */
  closed: () => Promise<void>;
  /** Closes the server and its connections (the caller's teardown, after its own client). */
  close: () => void;
}

export async function pumpingServer(t: Test, handler: (res: ServerResponse, pump: (total: number) => void) => void): Promise<PumpingServer> {
  let written = 0;
  let connections = 0;
  let closed = Promise.resolve();
  const server = createServer((req, res) => {
    req.resume();
    closed = new Promise((resolve) => res.on('close', resolve));
    const pump = (total: number): void => {
      // Writes with backpressure until `total` bytes or the client went away.
      const next = (): void => {
        while (written < total && !res.destroyed) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once('drain', next);
        }
        if (!res.destroyed) res.end();
      };
      next();
    };
    handler(res, pump);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): void => {
    server.closeAllConnections();
    server.close();
  };
  t.teardown(close);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => written, connections: () => connections, closed: () => closed, close };
}
