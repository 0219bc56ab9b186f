// Runs a real Prometheus (the Debian binary) for tests: 127.0.0.1 on a free port, a temp storage
// dir, 1s scrape and rule evaluation, one scrape target, optional rule file. stop() kills it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';

export interface PrometheusOptions {
  binary: string;
  /** host:port serving the metrics. */
  target: string;
  metricsPath?: string;
  /** Absolute path of a rule file to load (e.g. config/alerts.yml). */
  rulesFile?: string;
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface QueryResult {
  resultType: string;
  /** Vector samples; a scalar or string result becomes one sample with no labels. */
  samples: PromSample[];
}

export interface PrometheusHandle {
  url: string;
  query(expr: string): Promise<QueryResult>;
  api<T>(path: string): Promise<T>;
  /** Resolves after a scrape that started later than now (so earlier traffic is stored). */
  nextScrape(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-prom-'));
  const configFile = join(dir, 'prometheus.yml');
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    ...(options.rulesFile ? ['rule_files:', `  - ${JSON.stringify(options.rulesFile)}`] : []),
    'scrape_configs:',
    '  - job_name: toolgate',
    `    metrics_path: ${JSON.stringify(options.metricsPath ?? '/metrics')}`,
    '    static_configs:',
    `      - targets: [${JSON.stringify(options.target)}]`,
    '',
  ].join('\n');
  await writeFile(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    options.binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // If the test process dies without teardown, do not leave Prometheus running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  async function api<T>(path: string): Promise<T> {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? response.status}`);
    return body.data;
  }

  async function query(expr: string): Promise<QueryResult> {
    const data = await api<{ resultType: string; result: PromSample[] | [number, string] }>(
      `/api/v1/query?query=${encodeURIComponent(expr)}`,
    );
    const samples =
      data.resultType === 'vector' || data.resultType === 'matrix'
        ? (data.result as PromSample[])
        : [{ metric: {}, value: data.result as [number, string] }];
    return { resultType: data.resultType, samples };
  }

  try {
    await until('Prometheus to be ready', 15_000, async () => {
      if (child.exitCode !== null) throw new Error('exited');
      return (await fetch(`${url}/-/ready`)).ok ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw new Error(`prometheus did not start: ${(error as Error).message}\n${stderr}`);
  }

  return {
    url,
    query,
    api,
    async nextScrape(timeoutMs = 10_000) {
      const after = Date.now() / 1000;
      await until(`a scrape of ${options.target}`, timeoutMs, async () => {
        // timestamp() of a plain selector is the scrape time (after `== 1` it would be "now").
        const [up, at] = await Promise.all([query('up{job="toolgate"}'), query('timestamp(up{job="toolgate"})')]);
        return up.samples[0]?.value[1] === '1' && Number(at.samples[0]?.value[1]) > after ? true : undefined;
      });
    },
    stop,
  };
}
