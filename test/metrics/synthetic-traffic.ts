// Synthetic traffic through the metrics facade, and a tiny Fastify server exposing /metrics.
// One round touches every metric and is bad enough to trip all five alerts: 20% text fallback,
// p95 of 12 LLM calls per task, ~15 USD per round, ~20% upstream errors, re-asks on 20% of tool answers.
import Fastify from 'fastify';
import type { Metrics } from '../../src/metrics/index.js';

export type TrafficFeeder = (round: number) => Promise<void> | void;

export function syntheticTraffic(metrics: Metrics): TrafficFeeder {
  return (round) => {
    const openai = metrics.forModel('openai', 'gpt-4o');
    const together = metrics.forModel('together', 'llama-70b', 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
    const local = metrics.forModel('local', 'my-finetune');

    for (let i = 0; i < 10; i += 1) {
      const endpoint = i % 2 === 0 ? 'chat_completions' : 'responses';
      metrics.observeRequest({ endpoint, status: 200, durationSeconds: 0.8 + i / 10, upstreamSeconds: 0.78 + i / 10 });
      openai.llmCall(endpoint, 'success');
      openai.firstToken(0.2 + i / 50);
      openai.toolResponse(i < 8 ? 'native' : 'text', 2);
      together.llmCall('chat_completions', i < 7 ? 'success' : i === 7 ? 'error_5xx' : i === 8 ? 'timeout' : 'retried');
      together.toolResponse(i < 5 ? 'prompt' : 'none', i < 5 ? 1 : 0);
      local.llmCall('chat_completions', i === 0 ? 'rate_limited' : 'success');
    }
    metrics.observeRequest({ endpoint: 'chat_completions', status: 400, durationSeconds: 0.002 });
    metrics.observeRequest({ endpoint: 'chat_completions', status: 502, durationSeconds: 2, upstreamSeconds: 1.99 });
    metrics.observeRequest({ endpoint: 'models', status: 200, durationSeconds: 0.001 });

    openai.usage({ prompt_tokens: 2_000_000, completion_tokens: 1_000_000, total_tokens: 3_000_000 }); // 15 USD
    together.usage({ prompt_tokens: 5000, completion_tokens: 1000, total_tokens: 6000 });
    local.usage({ prompt_tokens: 300, completion_tokens: 100, total_tokens: 400 }); // unpriced

    metrics.repairs([{ kind: 'missing_tool_result' }, { kind: 'arguments_repaired' }]);
    openai.toolNameAliased('case');
    metrics.toolLoop();
    metrics.unknownToolName();
    metrics.invalidToolArguments();
    openai.contractViolation('wrong_tool');
    openai.contractViolation('invalid_arguments');
    openai.reask('complied');
    openai.reask('violated');

    // Tasks: six of 2 calls, four of 12 calls.
    for (let task = 0; task < 10; task += 1) {
      const key = `header:round-${round}-task-${task}`;
      metrics.taskCall(key, task < 6 ? 2 : 12);
      metrics.taskEnd(key);
    }
  };
}

export interface MetricsServer {
  /** host:port */
  target: string;
  close(): Promise<void>;
}

export async function serveMetrics(metrics: Metrics): Promise<MetricsServer> {
  const app = Fastify();
  app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { target: `127.0.0.1:${address.port}`, close: () => app.close() };
}
