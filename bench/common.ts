import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

// Shared helpers for the benchmark: child processes that report "ready" over IPC, /proc memory
// readings, percentiles. Everything binds to 127.0.0.1.

export const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
export const ROOT_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface ReadyMessage {
  type: 'ready';
  url: string;
  [key: string]: unknown;
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  url: string;
  ready: ReadyMessage;
  /** Sends a message and waits for the reply of the given type. */
  ask<T>(message: Record<string, unknown>, replyType: string, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Extra node flags placed before the script (npm start's). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** Load tsx in the child (always for .ts scripts; for .mjs ones that import TypeScript). */
  tsx?: boolean;
  /** The node binary (default: the one running the bench), e.g. the cached Node 24. */
  execPath?: string;
}

/** A child that exited before it was ready; `reason` is what it reported over IPC, if anything. */
export class ChildStartError extends Error {
  constructor(
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** Starts `node [--import tsx] bench/<script>` and waits for its {type:'ready', url} message. */
export async function spawnChild(script: string, args: string[], options: SpawnOptions = {}): Promise<Child> {
  const tsx = options.tsx ?? script.endsWith('.ts');
  const nodeArgs = [...(options.nodeArgs ?? []), ...(tsx ? ['--import', 'tsx'] : []), `${BENCH_DIR}${script}`, ...args];
  const proc = spawn(options.execPath ?? process.execPath, nodeArgs, {
    cwd: ROOT_DIR,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let reason: string | undefined;
  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new ChildStartError(`${script} did not start within 60 s`));
    }, 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new ChildStartError(`${script} exited with code ${code} before it was ready${reason ? `: ${reason}` : ''}`, reason));
    });
    proc.on('message', (message: unknown) => {
      if (isReady(message)) {
        clearTimeout(timer);
        resolve(message);
      } else if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'startup-error') {
        reason = String((message as { message?: unknown }).message ?? 'unknown');
      }
    });
  });
  proc.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    proc,
    pid: proc.pid as number,
    url: ready.url,
    ready,
    ask<T>(message: Record<string, unknown>, replyType: string, timeoutMs = 10_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          proc.off('message', onMessage);
          reject(new Error(`${script}: no '${replyType}' reply`));
        }, timeoutMs);
        const onMessage = (reply: unknown): void => {
          if (typeof reply === 'object' && reply !== null && (reply as { type?: unknown }).type === replyType) {
            clearTimeout(timer);
            proc.off('message', onMessage);
            resolve(reply as T);
          }
        };
        proc.on('message', onMessage);
        proc.send(message);
      });
    },
    async stop(): Promise<void> {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      if (proc.connected) proc.send({ type: 'stop' });
      else proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function isReady(message: unknown): message is ReadyMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready';
}

export interface ProcMemory {
  /** Resident set size now, MB. */
  rssMb: number;
  /** Peak resident set size since the process started (VmHWM), MB. */
  peakRssMb: number;
}

/** RSS of another process from /proc (Linux). */
export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : NaN;
  };
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) a process has used so far, ms, from /proc/<pid>/stat (10 ms ticks). */
export function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return ticks * 10; // CLK_TCK is 100 on Linux
}

/** All cores' ticks from /proc/stat: busy (anything but idle and iowait) and total. */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU ticks of this process plus its children that have exited (utime, stime, cutime, cstime). */
export function selfAndReapedTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return NaN;
  const sorted = [...finite].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Percentile (nearest rank) of an already sorted array. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** A growable Float64 sample buffer (latencies in ms) with cheap percentiles. */
export class Samples {
  private data = new Float64Array(4096);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }

  percentiles(ps: readonly number[]): number[] {
    const sorted = this.sorted();
    return ps.map((p) => percentileSorted(sorted, p));
  }
}

export function loadAverage(): [number, number, number] {
  const [one, five, fifteen] = os.loadavg();
  return [round(one, 2), round(five, 2), round(fifteen, 2)];
}

export function round(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function log(message: string): void {
  const time = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[bench ${time}] ${message}\n`);
}
