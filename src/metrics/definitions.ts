// Every toolgate_* metric, defined once on a given registry. Names, labels and buckets live here.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { flushPendingCounts } from './pending-counter.js';

export const CALLS_PER_TASK_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const TTFT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60];

const MODEL = ['provider', 'model'] as const;

export function defineMetrics(registry: Registry) {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'toolgate_requests_total',
      help: 'Gateway requests by endpoint and HTTP status.',
      labelNames: ['endpoint', 'status'] as const,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    requestDuration: new Histogram({
      name: 'toolgate_request_duration_seconds',
      help: 'Gateway request duration, upstream time included.',
      labelNames: ['endpoint'] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    overhead: new Histogram({
      name: 'toolgate_overhead_seconds',
      help: 'Gateway time per request excluding time spent waiting on upstreams (requests that called one).',
      buckets: OVERHEAD_BUCKETS,
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: 'toolgate_time_to_first_token_seconds',
      help: 'Time from sending an upstream request to its first content or tool-call token.',
      labelNames: MODEL,
      buckets: TTFT_BUCKETS,
      registers,
    }),
    llmCalls: new Counter({
      name: 'toolgate_llm_calls_total',
      help: 'Upstream LLM calls, retries and fallbacks included, by outcome.',
      labelNames: [...MODEL, 'endpoint', 'outcome'] as const,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    toolCalls: new Counter({
      name: 'toolgate_tool_calls_total',
      help: 'Tool calls returned to clients, by how they were obtained (native | text | prompt).',
      labelNames: [...MODEL, 'mode'] as const,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    toolResponses: new Counter({
      name: 'toolgate_tool_responses_total',
      help: 'Answers to requests that declared tools, by how their tool calls were obtained (none = no calls).',
      labelNames: [...MODEL, 'mode'] as const,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    repairs: new Counter({
      name: 'toolgate_repairs_total',
      help: 'Request history repairs by finding kind.',
      labelNames: ['kind'] as const,
      registers,
    }),
    toolNameAliased: new Counter({
      name: 'toolgate_tool_name_aliased_total',
      help: 'Tool names the model wrote that were mapped to a declared tool, by how.',
      labelNames: [...MODEL, 'how'] as const,
      registers,
    }),
    toolLoops: new Counter({
      name: 'toolgate_tool_loops_total',
      help: 'Repeated identical tool calls detected (loops).',
      registers,
    }),
    unknownToolNames: new Counter({
      name: 'toolgate_unknown_tool_names_total',
      help: 'Tool calls naming a tool the request did not declare.',
      registers,
    }),
    invalidToolArguments: new Counter({
      name: 'toolgate_invalid_tool_arguments_total',
      help: 'Tool calls whose arguments were not valid JSON for the declared schema.',
      registers,
    }),
    contractViolations: new Counter({
      name: 'toolgate_contract_violations_total',
      help: "Answers (re-asks' included) that broke the request's tool contract, by kind (docs/contract.md).",
      labelNames: [...MODEL, 'kind'] as const,
      registers,
    }),
    reasks: new Counter({
      name: 'toolgate_reasks_total',
      help: 'Re-asks after a contract violation, by outcome (complied, violated, failed).',
      labelNames: [...MODEL, 'outcome'] as const,
      registers,
    }),
    tokens: new Counter({
      name: 'toolgate_tokens_total',
      help: 'Upstream tokens by type (prompt, completion, reasoning; reasoning is part of completion).',
      labelNames: [...MODEL, 'type'] as const,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    cost: new Counter({
      name: 'toolgate_cost_usd_total',
      help: 'Upstream cost in USD from configured (or shipped list) prices per 1M tokens.',
      labelNames: MODEL,
      registers,
    }),
    unpricedTokens: new Counter({
      name: 'toolgate_unpriced_tokens_total',
      help: 'Tokens of models with no known price (their cost is missing from toolgate_cost_usd_total).',
      labelNames: MODEL,
      registers,
      collect: flushPendingCounts, // hot-path children add up here (pending-counter.ts)
    }),
    callsPerTask: new Histogram({
      name: 'toolgate_llm_calls_per_task',
      help: 'LLM calls per task (agent run), observed when the task ends.',
      buckets: CALLS_PER_TASK_BUCKETS,
      registers,
    }),
    tasksEnded: new Counter({
      name: 'toolgate_tasks_ended_total',
      help: 'Tasks ended, by reason (final answer, idle timeout, evicted from a full tracker).',
      labelNames: ['reason'] as const,
      registers,
    }),
  };
}

export type MetricSet = ReturnType<typeof defineMetrics>;

/** What one state store reports at scrape time (see src/util/budget.ts StoreStats). */
export interface StoreReading {
  store: string;
  bytes?: number;
  entries?: number;
  maxBytes?: number;
  rejected: number;
}

/**
 * Sizes of the stores the gateway keeps (`store` ∈ responses, ledger), read from the stores' own
 * accounting at scrape time. Memory stores report bytes, entries and their budget; every store
 * reports entries refused for being over the per-entry cap.
 */
export function defineStateMetrics(registry: Registry, read: () => StoreReading[]) {
  const registers = [registry];
  const lastRejected = new Map<string, number>();
  const gauge = (name: string, help: string, pick: (reading: StoreReading) => number | undefined): Gauge<'store'> =>
    new Gauge({
      name,
      help,
      labelNames: ['store'] as const,
      registers,
      collect() {
        this.reset();
        for (const reading of read()) {
          const value = pick(reading);
          if (value !== undefined) this.set({ store: reading.store }, value);
        }
      },
    });
  return {
    stateBytes: gauge('toolgate_state_bytes', 'Estimated bytes held by an in-memory state store (every gateway key together).', (r) => r.bytes),
    stateEntries: gauge('toolgate_state_entries', 'Entries held by an in-memory state store.', (r) => r.entries),
    stateMaxBytes: gauge('toolgate_state_max_bytes', 'Byte budget of an in-memory state store (least recently used entries are evicted beyond it).', (r) => r.maxBytes),
    stateRejected: new Counter({
      name: 'toolgate_state_rejected_total',
      help: 'Entries a state store did not keep because they were over its per-entry size cap.',
      labelNames: ['store'] as const,
      registers,
      collect() {
        for (const reading of read()) {
          const delta = reading.rejected - (lastRejected.get(reading.store) ?? 0);
          lastRejected.set(reading.store, reading.rejected);
          this.inc({ store: reading.store }, Math.max(delta, 0));
        }
      },
    }),
  };
}
