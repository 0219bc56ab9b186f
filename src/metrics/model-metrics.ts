// Per (provider, model label) series, resolved once, and the handle the request path uses.
import type { Counter } from 'prom-client';
import type { Usage } from '../api/chat-types.js';
import type { MetricSet } from './definitions.js';
import { directChild, type HistogramChild } from './histogram-child.js';
import { pendingChild, type CounterChild } from './pending-counter.js';
import type { BoundedLabel } from './labels.js';
import { costUsd, type Price } from './pricing.js';
import {
  LLM_CALL_OUTCOMES,
  RESPONSE_MODES,
  TOKEN_TYPES,
  TOOL_MODES,
  type CostEvent,
  type Endpoint,
  type LlmCallOutcome,
  type ModelMetrics,
  type ReaskOutcome,
  type ResponseMode,
  type TokenType,
  type ToolMode,
} from './types.js';

/** Labels children start at 0, so ratios over them are 0 rather than empty. */
function zeroed<T extends string>(counter: Counter<T>, labels: Record<T, string>): CounterChild {
  counter.inc(labels, 0);
  return counter.labels(labels);
}

function children<K extends string, T extends string>(
  keys: readonly K[],
  counter: Counter<T>,
  labelsFor: (key: K) => Record<T, string>,
): Record<K, CounterChild> {
  const out = {} as Record<K, CounterChild>;
  for (const key of keys) out[key] = pendingChild(counter, labelsFor(key));
  return out;
}

/** The series of one (provider, model label) pair, shared by every handle that maps to it. */
export class ModelSeries {
  readonly toolCalls: Record<ToolMode, CounterChild>;
  readonly toolResponses: Record<ResponseMode, CounterChild>;
  readonly tokens: Record<TokenType, CounterChild>;
  readonly cost: CounterChild;
  readonly unpriced: CounterChild;
  readonly firstToken: HistogramChild;
  /** USD since start, for costFor(). */
  costUsd = 0;
  private readonly calls = new Map<Endpoint, Record<LlmCallOutcome, CounterChild>>();
  private readonly aliased = new Map<string, CounterChild>();

  constructor(
    private readonly set: MetricSet,
    readonly provider: string,
    readonly model: string,
    private readonly aliasKinds: BoundedLabel,
  ) {
    const base = { provider, model };
    this.toolCalls = children(TOOL_MODES, set.toolCalls, (mode) => ({ ...base, mode }));
    this.toolResponses = children(RESPONSE_MODES, set.toolResponses, (mode) => ({ ...base, mode }));
    this.tokens = children(TOKEN_TYPES, set.tokens, (type) => ({ ...base, type }));
    this.cost = zeroed(set.cost, base);
    this.unpriced = pendingChild(set.unpricedTokens, base);
    this.firstToken = directChild(set.timeToFirstToken, base);
  }

  /** All outcomes of an endpoint are created together, so error ratios start at 0. */
  llmCalls(endpoint: Endpoint): Record<LlmCallOutcome, CounterChild> {
    let byOutcome = this.calls.get(endpoint);
    if (!byOutcome) {
      const base = { provider: this.provider, model: this.model, endpoint };
      byOutcome = children(LLM_CALL_OUTCOMES, this.set.llmCalls, (outcome) => ({ ...base, outcome }));
      this.calls.set(endpoint, byOutcome);
    }
    return byOutcome;
  }

  /** Contract violations and re-asks are rare: their series are made on first use. */
  contractViolation(kind: string): void {
    this.set.contractViolations.inc({ provider: this.provider, model: this.model, kind });
  }

  reask(outcome: ReaskOutcome): void {
    this.set.reasks.inc({ provider: this.provider, model: this.model, outcome });
  }

  aliasedBy(how: string): CounterChild {
    const label = this.aliasKinds.value(how);
    let child = this.aliased.get(label);
    if (!child) {
      child = this.set.toolNameAliased.labels({ provider: this.provider, model: this.model, how: label });
      this.aliased.set(label, child);
    }
    return child;
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export class ModelHandle implements ModelMetrics {
  readonly modelLabel: string;

  constructor(
    private readonly series: ModelSeries,
    readonly provider: string,
    readonly model: string,
    readonly upstreamModel: string,
    private readonly price: Price | undefined,
    private readonly emitCost: (event: CostEvent) => void,
  ) {
    this.modelLabel = series.model;
  }

  llmCall(endpoint: Endpoint, outcome: LlmCallOutcome): void {
    this.series.llmCalls(endpoint)[outcome].inc();
  }

  firstToken(seconds: number): void {
    if (Number.isFinite(seconds) && seconds >= 0) this.series.firstToken.observe(seconds);
  }

  toolResponse(mode: ResponseMode, toolCalls: number): void {
    this.series.toolResponses[mode].inc();
    if (mode !== 'none' && toolCalls > 0) this.series.toolCalls[mode].inc(toolCalls);
  }

  toolNameAliased(how: string): void {
    this.series.aliasedBy(how).inc();
  }

  contractViolation(kind: string): void {
    this.series.contractViolation(kind);
  }

  reask(outcome: ReaskOutcome): void {
    this.series.reask(outcome);
  }

  usage(usage: Usage, budgetKey?: string): number {
    const prompt = count(usage.prompt_tokens);
    const completion = count(usage.completion_tokens);
    const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
    const { tokens } = this.series;
    if (prompt > 0) tokens.prompt.inc(prompt);
    if (completion > 0) tokens.completion.inc(completion);
    if (reasoning > 0) tokens.reasoning.inc(reasoning);
    if (!this.price) {
      if (prompt + completion > 0) this.series.unpriced.inc(prompt + completion);
      return 0;
    }
    const cachedPrompt = count(usage.prompt_tokens_details?.cached_tokens);
    const usd = costUsd(this.price, { prompt, completion, cachedPrompt });
    if (usd <= 0) return 0;
    this.series.cost.inc(usd);
    this.series.costUsd += usd;
    this.emitCost({
      provider: this.provider,
      model: this.model,
      upstreamModel: this.upstreamModel,
      modelLabel: this.modelLabel,
      usd,
      promptTokens: prompt,
      completionTokens: completion,
      ...(budgetKey === undefined ? {} : { budgetKey }),
    });
    return usd;
  }
}
