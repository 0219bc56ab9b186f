// `npm run demo`: toolgate in this process on the built-in simulator (offline, no keys), and a
// short scripted agent using the OpenAI SDK through three tool loops:
//   1. a native tool call                         (simulator/weather)
//   2. a call the model wrote as text, made real  (simulator/weather:hermes)
//   3. a broken history repaired from the ledger  (assistant tool_calls and tool_call_ids dropped)
// After every LLM call it prints what toolgate did (response headers) and which toolgate_* metrics
// moved (scrapes /metrics before and after). Exits non-zero if toolgate did not do what it should.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/load.js';
import { createLogger } from '../src/logging.js';
import { changedSeries, deltaOf, formatDelta } from './demo-metrics.js';

type Message = OpenAI.ChatCompletionMessageParam;
type ToolCall = OpenAI.ChatCompletionMessageFunctionToolCall;

const configPath = fileURLToPath(new URL('../config/gateway.yaml', import.meta.url));

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
const bold = paint('1');
const dim = paint('2');
const green = paint('32');
const cyan = paint('36');
const yellow = paint('33');

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  },
];

const FORECASTS: Record<string, { temperature_c: number; sky: string }> = {
  Paris: { temperature_c: 21, sky: 'clear' },
  Tokyo: { temperature_c: 26, sky: 'humid' },
  Berlin: { temperature_c: 15, sky: 'cloudy' },
  Madrid: { temperature_c: 29, sky: 'sunny' },
};

/** The agent's one tool. */
function runTool(call: ToolCall): string {
  const args = JSON.parse(call.function.arguments) as { city?: string };
  const city = args.city ?? 'unknown';
  return JSON.stringify({ city, ...(FORECASTS[city] ?? { temperature_c: 18, sky: 'unknown' }) });
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`demo check failed: ${message}`);
}

const line = (label: string, text: string): void => console.log(`   ${dim(label.padEnd(10))} ${text}`);

/** Shows a few throwaway Fastify deprecation notices as nothing: the demo's output is for people. */
function quietDeprecations(): void {
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    if (warning.name === 'FastifyDeprecation' || /^FSTDEP/.test(warning.code ?? '')) return;
    for (const listener of listeners) listener(warning);
  });
}

async function main(): Promise<void> {
  quietDeprecations();
  // The shipped config, with an empty environment: no upstream key is read, the simulator serves.
  const loaded = parseConfig(readFileSync(configPath, 'utf8'), {}, configPath);
  const logger = createLogger({ level: 'warn', secrets: loaded.secrets });
  const { app } = await buildApp(loaded, { logger });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-needed-for-the-simulator', maxRetries: 0 });
  const scrape = async (): Promise<string> => (await fetch(`${url}/metrics`)).text();

  console.log(bold('toolgate demo') + dim(' — gateway in this process, upstream = the built-in simulator (offline, no keys)'));
  console.log(dim(`   gateway   ${url}/v1   config ${loaded.path.replace(`${process.cwd()}/`, '')}`));
  console.log(dim('   after each LLM call: the toolgate response headers, then every toolgate_* series that moved on\n' +
    '   GET /metrics (latency histograms — request duration, overhead, time to first token — left out)'));

  let task = 0;
  let totalCalls = 0;

  /** One LLM call through toolgate: prints what toolgate did and the metrics that moved. */
  async function llmCall(model: string, messages: Message[], taskId: string) {
    const before = await scrape();
    const { data, response } = await client.chat.completions
      .create({ model, messages, tools: TOOLS }, { headers: { 'x-toolgate-task-id': taskId } })
      .withResponse();
    const after = await scrape();
    const mode = response.headers.get('x-toolgate-tool-mode') ?? '(none)';
    const repairs = response.headers.get('x-toolgate-repairs');
    // Leave out the demo's own /metrics scrapes and the latency histograms (timings, not counts).
    const deltas = changedSeries(before, after).filter((d) => !d.series.includes('endpoint="metrics"') && !d.name.includes('_seconds'));
    const calls = deltaOf(deltas, 'toolgate_llm_calls_total');
    totalCalls += calls;
    console.log(
      `   ${cyan('toolgate')}   POST /v1/chat/completions → ${response.status}` +
        `  x-toolgate-tool-mode: ${bold(mode)}` +
        `  x-toolgate-repairs: ${repairs ? yellow(repairs) : dim('—')}` +
        `  LLM calls: ${calls}`,
    );
    for (const d of deltas) console.log(`   ${dim('metric'.padEnd(10))} ${d.series} ${green(formatDelta(d.delta))}`);
    const message = data.choices[0].message;
    const toolCalls = (message.tool_calls ?? []).filter((c): c is ToolCall => c.type === 'function');
    if (toolCalls.length > 0) {
      line('assistant', toolCalls.map((c) => `${c.function.name}(${c.function.arguments})  ${dim(c.id)}`).join(', ') + dim(`  finish_reason=${data.choices[0].finish_reason}`));
    } else {
      line('assistant', JSON.stringify(message.content));
    }
    return { message, toolCalls, mode, repairs };
  }

  /** A plain agent loop: call, run the tools, send the results back, until a text answer. */
  async function agent(title: string, model: string, prompt: string, expectedMode: string, note: string): Promise<void> {
    task += 1;
    console.log(`\n${bold(`${task}. ${title}`)}  ${dim(`model ${model}`)}`);
    console.log(dim(`   ${note}`));
    const messages: Message[] = [{ role: 'user', content: prompt }];
    line('user', prompt);
    for (let step = 0; step < 4; step++) {
      const answer = await llmCall(model, messages, `demo-${task}`);
      if (answer.toolCalls.length === 0) return;
      if (step === 0) check(answer.mode === expectedMode, `expected x-toolgate-tool-mode ${expectedMode}, got ${answer.mode}`);
      messages.push({ role: 'assistant', content: answer.message.content, tool_calls: answer.toolCalls });
      for (const call of answer.toolCalls) {
        const result = runTool(call);
        line('tool', `${call.function.name} → ${result}`);
        messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
    }
    throw new Error('the agent loop did not finish');
  }

  await agent(
    'Native tool call',
    'simulator/weather',
    'What is the weather in Paris?',
    'native',
    'The upstream returns structured tool_calls; toolgate passes them through and counts mode="native".',
  );

  await agent(
    'Tool call written as text → real tool_calls',
    'simulator/weather:hermes',
    'What is the weather in Tokyo?',
    'text',
    'The upstream writes <tool_call>{"name":"get_weather",…}</tool_call> as text, as many open models do;\n' +
      '   toolgate parses it into real tool_calls and counts mode="text" (the fallback-rate alert watches this).',
  );

  // 3. A client that serializes only role + content: the assistant message loses its tool_calls and
  //    the tool results their tool_call_id. Upstreams reject such a history with a 400.
  task += 1;
  const model = 'simulator/weather';
  const prompt = 'What is the weather in Berlin and Madrid?';
  console.log(`\n${bold(`${task}. Broken history repaired`)}  ${dim(`model ${model}`)}`);
  console.log(dim('   The client keeps only role + content: the assistant message comes back as content "" without\n' +
    '   tool_calls, the tool messages without tool_call_id. toolgate restores them from its call ledger.'));
  line('user', prompt);
  const first = await llmCall(model, [{ role: 'user', content: prompt }], `demo-${task}`);
  check(first.toolCalls.length === 2, `expected two parallel calls, got ${first.toolCalls.length}`);
  const results = first.toolCalls.map(runTool);
  for (const [i, call] of first.toolCalls.entries()) line('tool', `${call.function.name} → ${results[i]}`);
  const broken = [
    { role: 'user', content: prompt },
    { role: 'assistant', content: '' },
    ...results.map((content) => ({ role: 'tool', content })),
  ] as Message[];
  line('client', `sends back ${dim(JSON.stringify(broken.slice(1)))}`);
  const repaired = await llmCall(model, broken, `demo-${task}`);
  check(repaired.repairs !== null && /restored_tool_calls/.test(repaired.repairs ?? ''), `expected x-toolgate-repairs with restored_tool_calls, got ${repaired.repairs}`);
  check(repaired.toolCalls.length === 0 && /Berlin/.test(String(repaired.message.content)), 'the repaired history should reach a final answer');

  const seconds = process.uptime().toFixed(1);
  console.log(`\n${bold('done')}  3 tool loops, ${totalCalls} LLM calls, ${seconds}s. ` + dim('Every series above is on GET /metrics for Prometheus and the Grafana dashboard.'));
  console.log(dim('   next: npm run serve (gateway on :8080) · docker compose up (gateway + Prometheus + Grafana)'));
  await app.close();
}

main().catch((error: unknown) => {
  console.error(`\ndemo failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
