import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { textAnswer, toolCallAnswer, type UpstreamAnswer } from '../test/adversarial/answers.js';
import { ARGUMENT_FAMILIES, MODEL_OUTPUT_FAMILIES, MODEL_REGEX_FAMILIES, REDOS_PATTERNS, repeatTo } from '../test/adversarial/payloads.js';
import { type Child, log, round, sleep, spawnChild } from './common.js';

// Adversarial inputs: for each attack family at 200 KB, JSON and SSE, how long the attack
// request takes and the worst latency another client's GET /healthz saw meanwhile (goal ≤ 100 ms).
// The gateway runs in its own process; this process is the upstream and both clients. An attack
// still running after --cap-s is abandoned and the gateway restarted (reported as "≥ cap").
//
//   npm run bench:adversarial [-- --src] [--only=REGEX] [--issue-only] [--kb=200] [--cap-s=20]
//   (prints the table; `npm run bench` puts it in bench/results/latest.md)

export interface AdversarialRow {
  family: string;
  kind: 'model output' | 'client input';
  mode: string;
  fromIssue: boolean;
  bytes: number;
  status: number | 'stalled';
  attackMs: number;
  /** Worst /healthz latency seen while the attack ran; null when no probe completed. */
  worstHealthMs: number | null;
  probes: number;
}

export interface AdversarialResults {
  meta: { date: string; node: string; cpu: string; cores: number; gateway: string; kb: number; capS: number };
  rows: AdversarialRow[];
}

interface AttackCase {
  family: string;
  kind: AdversarialRow['kind'];
  mode: string;
  fromIssue: boolean;
  path: string;
  body: (bytes: number) => object;
  answer: (bytes: number) => UpstreamAnswer;
}

const KEY = 'bench-adv-key-0123456789';
const WEATHER = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const OK = (): UpstreamAnswer => textAnswer('ok');

function cases(): AttackCase[] {
  const out: AttackCase[] = [];
  // Control: plain prose of the same size (what any 200 KB answer costs, attack or not).
  const prose = (bytes: number): string => repeatTo(bytes, 'The weather in Oslo is mild today, with light rain expected in the evening. ');
  for (const stream of [false, true]) {
    out.push({
      family: 'control: plain prose',
      kind: 'model output',
      mode: stream ? 'SSE' : 'JSON',
      fromIssue: true,
      path: '/v1/chat/completions',
      body: () => ({ model: 'raw/m', stream, messages: [{ role: 'user', content: 'weather?' }], tools: [WEATHER] }),
      answer: (bytes) => textAnswer(prose(bytes)),
    });
  }
  for (const family of [...MODEL_OUTPUT_FAMILIES, ...MODEL_REGEX_FAMILIES]) {
    for (const stream of [false, true]) {
      out.push({
        family: family.name,
        kind: 'model output',
        mode: stream ? 'SSE' : 'JSON',
        fromIssue: family.fromIssue,
        path: '/v1/chat/completions',
        body: () => ({ model: 'raw/m', stream, messages: [{ role: 'user', content: 'weather?' }], tools: [WEATHER] }),
        answer: (bytes) => textAnswer(family.build(bytes)),
      });
    }
  }
  const history = (args: string, stream: boolean, model = 'raw/m'): object => ({
    model,
    stream,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_b1', type: 'function', function: { name: 'get_weather', arguments: args } }] },
      { role: 'tool', tool_call_id: 'call_b1', content: 'sunny' },
    ],
  });
  for (const family of ARGUMENT_FAMILIES) {
    for (const [mode, path, stream] of [['JSON', '/v1/chat/completions', false], ['SSE', '/v1/chat/completions', true], ['lint', '/v1/toolgate/lint', false]] as const) {
      out.push({ family: `arguments ${family.name}`, kind: 'client input', mode, fromIssue: family.fromIssue, path, body: (bytes) => history(family.build(bytes), stream), answer: OK });
    }
  }
  for (const redos of REDOS_PATTERNS) {
    for (const stream of [false, true]) {
      out.push({
        family: `schema pattern ${redos.name}`,
        kind: 'client input',
        mode: stream ? 'SSE' : 'JSON',
        fromIssue: redos.fromIssue,
        path: '/v1/chat/completions',
        body: () => ({ model: 'raw/m', stream, messages: [{ role: 'user', content: 'check' }], tools: [{ type: 'function', function: { name: 'check', parameters: { type: 'object', properties: { s: { type: 'string', pattern: redos.pattern } } } } }] }),
        answer: (bytes) => toolCallAnswer([{ name: 'check', arguments: JSON.stringify({ s: redos.value(bytes) }) }]),
      });
    }
  }
  for (const [name, fromIssue, build] of [
    ['model glob hf/*llama*70b* vs llama-run', true, (n: number) => repeatTo(n, 'llama', 'hf/')],
    ['model glob raw/*a*a*b* vs a-run', false, (n: number) => repeatTo(n, 'a', 'raw/')],
  ] as const) {
    out.push({ family: name, kind: 'client input', mode: 'JSON', fromIssue, path: '/v1/chat/completions', body: (bytes) => ({ model: build(bytes), messages: [{ role: 'user', content: 'hi' }] }), answer: OK });
  }
  for (const stream of [false, true]) {
    out.push({
      family: '512 long tool names + 20 near-miss calls',
      kind: 'client input',
      mode: stream ? 'SSE' : 'JSON',
      fromIssue: true,
      path: '/v1/chat/completions',
      body: (bytes) => ({ model: 'raw/m', stream, messages: [{ role: 'user', content: 'hi' }], tools: longNames(bytes).map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } })) }),
      answer: (bytes) => toolCallAnswer(longNames(bytes).slice(0, 20).map((name) => ({ name: nearMiss(name), arguments: '{}' }))),
    });
    out.push({
      family: 'deep arguments, prompt-mode model',
      kind: 'client input',
      mode: stream ? 'SSE' : 'JSON',
      fromIssue: true,
      path: '/v1/chat/completions',
      body: (bytes) => history(`${'{"a":'.repeat(Math.floor(bytes / 6))}1${'}'.repeat(Math.floor(bytes / 6))}`, stream, 'pm'),
      answer: OK,
    });
  }
  return out;
}

function longNames(bytes: number): string[] {
  const length = Math.max(8, Math.floor(bytes / 512));
  return Array.from({ length: 512 }, (_, i) => {
    let seed = i * 7919 + 13;
    let name = `tool${i}x`;
    while (name.length < length) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      name += 'abcdefghijklmnopqrstuvwxyz'[seed % 26];
    }
    return name.slice(0, length);
  });
}

function nearMiss(name: string): string {
  return [...name].map((char, i) => (i % 20 === 10 ? (char === 'z' ? 'y' : 'z') : char)).join('');
}

function gatewayYaml(upstreamUrl: string): string {
  return `server:\n  host: 127.0.0.1\n  port: 0\nlogging:\n  level: error\nproviders:\n  raw:\n    type: openai-compatible\n    baseUrl: ${upstreamUrl}/v1\n    apiKey: k-raw\n    retry: {maxAttempts: 1}\n  hf:\n    type: openai-compatible\n    baseUrl: ${upstreamUrl}/v1\n    apiKey: k-raw\n    retry: {maxAttempts: 1}\nmodels:\n  pm:\n    provider: raw\n    model: m\n    toolCalling: prompt\nauth:\n  keys:\n    - key: ${KEY}\n      name: bench\n      models: ["hf/*llama*70b*", "raw/*a*a*b*", "raw/*", "pm"]\n`;
}

interface Flags {
  impl: 'dist' | 'src';
  only?: RegExp;
  issueOnly: boolean;
  kb: number;
  capS: number;
}

function parseFlags(argv: string[]): Flags {
  const value = (name: string): string | undefined => argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
  const only = value('--only');
  return {
    impl: argv.includes('--src') ? 'src' : 'dist',
    only: only && only !== 'adversarial' ? new RegExp(only) : undefined,
    issueOnly: argv.includes('--issue-only'),
    kb: Number(value('--kb') ?? 200),
    capS: Number(value('--cap-s') ?? 20),
  };
}

/** One attack: the request, and meanwhile /healthz one after another, each timed. */
async function runAttack(gatewayUrl: string, attack: AttackCase, bytes: number, capMs: number): Promise<Omit<AdversarialRow, 'family' | 'kind' | 'mode' | 'fromIssue' | 'bytes'>> {
  const controller = new AbortController();
  const cap = setTimeout(() => controller.abort(), capMs);
  const started = performance.now();
  let finished = false;
  const request = fetch(`${gatewayUrl}${attack.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(attack.body(bytes)),
    signal: controller.signal,
  })
    .then(async (res) => {
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - started };
    })
    .catch(() => ({ status: 'stalled' as const, ms: performance.now() - started }))
    .finally(() => {
      finished = true;
      clearTimeout(cap);
    });
  let worst: number | null = null;
  let probes = 0;
  while (!finished) {
    const probeStart = performance.now();
    try {
      const res = await fetch(`${gatewayUrl}/healthz`, { signal: controller.signal });
      await res.arrayBuffer();
      worst = Math.max(worst ?? 0, performance.now() - probeStart);
      probes++;
    } catch {
      // the attack was abandoned: this probe never got an answer
      worst = Math.max(worst ?? 0, performance.now() - probeStart);
      break;
    }
    await sleep(2);
  }
  const result = await request;
  return { status: result.status, attackMs: round(result.ms, 1), worstHealthMs: worst === null ? null : round(worst, 1), probes };
}

export async function runAdversarial(argv: string[]): Promise<AdversarialResults> {
  const flags = parseFlags(argv);
  let answer: UpstreamAnswer = textAnswer('ok');
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const configPath = join(os.tmpdir(), `toolgate-adversarial-${process.pid}.yaml`);
  writeFileSync(configPath, gatewayYaml(upstreamUrl));
  const start = (): Promise<Child> => spawnChild('serve-child.mjs', [configPath, flags.impl], { tsx: flags.impl === 'src' });
  let gateway = await start();
  const bytes = flags.kb * 1024;
  const results: AdversarialResults = {
    meta: { date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, gateway: flags.impl, kb: flags.kb, capS: flags.capS },
    rows: [],
  };
  try {
    const selected = cases().filter((c) => (!flags.issueOnly || c.fromIssue) && (!flags.only || flags.only.test(`${c.family} ${c.mode}`)));
    log(`adversarial: ${selected.length} attacks at ${flags.kb} KB against ${results.meta.gateway}, cap ${flags.capS} s each`);
    for (const attack of selected) {
      // Warm-up with a small payload so JIT and connection setup are not in the figure.
      answer = attack.answer(1024);
      await runAttack(gateway.url, attack, 1024, flags.capS * 1000);
      answer = attack.answer(bytes);
      const run = await runAttack(gateway.url, attack, bytes, flags.capS * 1000);
      results.rows.push({ family: attack.family, kind: attack.kind, mode: attack.mode, fromIssue: attack.fromIssue, bytes, ...run });
      log(`${attack.family} (${attack.mode}): ${run.status} in ${run.attackMs} ms; worst /healthz ${run.worstHealthMs ?? '-'} ms over ${run.probes} probes`);
      if (run.status === 'stalled') {
        // Still busy with the attack: a fresh process for the next one.
        gateway.proc.kill('SIGKILL');
        gateway = await start();
      }
    }
  } finally {
    gateway.proc.kill('SIGKILL');
    upstream.closeAllConnections();
    upstream.close();
  }
  return results;
}

const verdict = (row: AdversarialRow | undefined): string => {
  if (!row) return '—';
  const health = row.worstHealthMs === null ? '—' : row.status === 'stalled' ? `≥ ${row.worstHealthMs}` : `${row.worstHealthMs}`;
  const attack = row.status === 'stalled' ? `≥ ${row.attackMs} (stalled)` : `${row.attackMs} (${row.status})`;
  return `${attack} | ${health}`;
};

/** The markdown section: one row per attack. */
export function renderAdversarial(results: AdversarialResults): string {
  const lines = [
    `### Adversarial inputs (${results.meta.kb} KB each)`,
    '',
    `Gateway: ${results.meta.gateway}; node ${results.meta.node}; ${results.meta.cores} × ${results.meta.cpu}; an attack still running after ${results.meta.capS} s is abandoned.`,
    `"attack ms (status)" is the attack request's wall time; "worst /healthz" is the slowest of the /healthz requests another client sent one after another while it ran (goal ≤ 100 ms). * = payload named in the issue that asked for this section.`,
    '',
    '| kind | family | mode | attack ms (status) | worst /healthz ms | ≤ 100 ms |',
    '|---|---|---|---:|---:|:---:|',
  ];
  for (const row of results.rows) {
    const met = row.status !== 'stalled' && (row.worstHealthMs ?? 0) <= 100 ? 'yes' : 'no';
    lines.push(`| ${row.kind} | ${row.family}${row.fromIssue ? ' *' : ''} | ${row.mode} | ${verdict(row)} | ${met} |`);
  }
  const met = results.rows.filter((row) => row.status !== 'stalled' && (row.worstHealthMs ?? 0) <= 100).length;
  lines.push('', `${met} of ${results.rows.length} attacks kept every /healthz ≤ 100 ms.`, '');
  return lines.join('\n');
}

/** `npm run bench:adversarial`: runs the attacks and prints the table. */
export async function adversarialCli(argv: string[]): Promise<void> {
  process.stdout.write(renderAdversarial(await runAdversarial(argv)));
}
