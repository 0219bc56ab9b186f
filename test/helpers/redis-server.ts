import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from './free-port.js';

// A throwaway redis-server for one test file: a free port on 127.0.0.1, no persistence.

export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: an outage, as far as clients can tell). */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(200);
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.startsWith('+PONG'));
      }
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** `extraArgs`: more redis-server flags (e.g. a Cluster node). */
export async function startRedis(extraArgs: readonly string[] = []): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], { stdio: 'ignore' });
    child = proc;
    const failed = new Promise<never>((_, reject) =>
      proc.once('error', (error) => reject(new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`))),
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await Promise.race([ping(port), failed])) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await launch();
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: launch, close: stop };
}
