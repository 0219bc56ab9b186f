// Label values and the public shape of the metrics facade. Every label value that reaches
// Prometheus is either one of the closed sets below, a config name (provider), a bounded model
// label (configured models + the first N seen, then `other`), or a bounded free-form label
// (repair kind, alias "how") that falls back to `other`. Never tool names, ids or user text.
import type { Registry } from 'prom-client';
import type { Usage } from '../api/chat-types.js';
import type { LlmCallOutcome } from '../resilience/outcomes.js';
import type { PriceLookup } from './pricing.js';

/** Gateway endpoints (`endpoint` label). Anything else is recorded as `other`. */
export const ENDPOINTS = ['chat_completions', 'responses', 'messages', 'models', 'health', 'metrics', 'other'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

// The outcomes of one upstream call live with the code that decides them (resilience/outcomes.ts).
export { LLM_CALL_OUTCOMES, type LlmCallOutcome } from '../resilience/outcomes.js';

/**
 * How the tool calls of one answer were obtained (`mode` label):
 * - `native`  tools were sent natively and the upstream returned structured tool_calls;
 * - `text`    tools were sent natively but the model wrote the calls as text and toolgate parsed
 *             them — the silent fallback this metric exists to catch;
 * - `prompt`  the upstream got no native tools (by config/capability): tools were described in the
 *             prompt and calls parsed from text. By design, so not counted as fallback.
 */
export const TOOL_MODES = ['native', 'text', 'prompt'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/**
 * `toolgate_tool_responses_total{mode}`: one per answer to a request that declared tools;
 * `none` = the answer had no tool calls. Fallback rate (one ratio):
 *   sum(rate(toolgate_tool_responses_total{mode="text"}[10m]))
 *     / sum(rate(toolgate_tool_responses_total{mode=~"native|text"}[10m]))
 */
export const RESPONSE_MODES = ['native', 'text', 'prompt', 'none'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** `toolgate_tokens_total{type}`. `reasoning` is a subset of `completion` (as OpenAI reports it). */
export const TOKEN_TYPES = ['prompt', 'completion', 'reasoning'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** Why a task ended (`toolgate_tasks_ended_total{reason}`). */
export const TASK_END_REASONS = ['final', 'idle', 'evicted'] as const;
export type TaskEndReason = (typeof TASK_END_REASONS)[number];

export interface CostEvent {
  provider: string;
  /** The model as passed to forModel (e.g. the configured name the client asked for). */
  model: string;
  /** The upstream model id as sent. */
  upstreamModel: string;
  /** The bounded `model` label the cost was recorded under. */
  modelLabel: string;
  usd: number;
  promptTokens: number;
  completionTokens: number;
  /** Whatever the caller passed to `usage()` (e.g. a client key id) — never a label. */
  budgetKey?: string;
}
export type CostListener = (event: CostEvent) => void;

/** Pre-resolved per (provider, model) handle: get it once per upstream call, cheap to reuse. */
export interface ModelMetrics {
  readonly provider: string;
  readonly model: string;
  readonly upstreamModel: string;
  /** Bounded `model` label value: `model`, or `other` past the cap. */
  readonly modelLabel: string;
  /** One upstream call; `endpoint` is the gateway endpoint it served. */
  llmCall(endpoint: Endpoint, outcome: LlmCallOutcome): void;
  firstToken(seconds: number): void;
  /** One answer to a request that declared tools: how its calls were obtained, and how many. */
  toolResponse(mode: ResponseMode, toolCalls: number): void;
  /** A called tool name was mapped to a declared one; `how` is a short kind (bounded label). */
  toolNameAliased(how: string): void;
  /** Tokens and cost of one upstream answer; returns the cost in USD (0 when unpriced). */
  usage(usage: Usage, budgetKey?: string): number;
  /** An answer broke the request's tool contract (`kind`: one of the contract's violation kinds). */
  contractViolation(kind: string): void;
  /** A re-ask ended: the answer complied, violated again, or the call failed. */
  reask(outcome: ReaskOutcome): void;
}

export const REASK_OUTCOMES = ['complied', 'violated', 'failed'] as const;
export type ReaskOutcome = (typeof REASK_OUTCOMES)[number];

export interface RequestObservation {
  endpoint: Endpoint;
  status: number;
  durationSeconds: number;
  /** Time spent waiting on upstreams; when set, the rest is observed as gateway overhead. */
  upstreamSeconds?: number;
}

export interface MetricsOptions {
  /** Configured model names (the `model` given to forModel): always get their own label. */
  knownModels: string[];
  /** Further models that get their own label before the rest become `other`. Default 50. */
  maxModelLabels?: number;
  pricing: PriceLookup;
  /** Register prom-client default process_* / nodejs_* metrics. Default true. */
  defaultMetrics?: boolean;
  /** A task with no LLM call for this long ends (idle). Default 10 min. */
  taskIdleMs?: number;
  /** Most tasks tracked at once; the least recently active is ended (evicted). Default 10,000. */
  maxTasks?: number;
}

export interface Metrics {
  readonly contentType: string;
  /** The per-instance registry (exposed for tests and custom collectors). */
  readonly registry: Registry;
  /**
   * `provider`: the config name. `model`: the `model` label candidate — the configured model name
   * the client asked for (or "<provider>/<model>"). `upstreamModel` (default `model`): the id sent
   * upstream, used for the price.
   */
  forModel(provider: string, model: string, upstreamModel?: string): ModelMetrics;
  observeRequest(observation: RequestObservation): void;
  /** Repair findings (any object with a `kind`): one count per finding. */
  repairs(findings: ReadonlyArray<{ kind: string }>): void;
  toolLoop(count?: number): void;
  unknownToolName(count?: number): void;
  invalidToolArguments(count?: number): void;
  /** One more LLM call for the task (see taskKeyFor). */
  /** Adds calls to the task; returns its LLM-call count so far. */
  taskCall(taskKey: string, calls?: number): number;
  /** A final answer without tool calls: observe the task's call count and forget it. */
  taskEnd(taskKey: string): void;
  /** USD accumulated since start, optionally for one provider and/or model label. */
  costFor(filter?: { provider?: string; model?: string }): number;
  /** A state store to report at every scrape (toolgate_state_bytes / _entries / _max_bytes / _rejected_total{store}). */
  watchStore(store: 'responses' | 'ledger' | 'inspector', read: () => { bytes?: number; entries?: number; maxBytes?: number; rejected: number } | undefined): void;
  /** Called on every costed answer (e.g. for daily budgets); returns an unsubscribe function. */
  onCost(listener: CostListener): () => void;
  render(): Promise<string>;
  /** Stops the task sweeper. The registry stays readable. */
  close(): void;
}
