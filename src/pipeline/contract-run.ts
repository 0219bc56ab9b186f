import type { AssistantMessage, ChatRequest, Usage } from '../api/chat-types.js';
import { policyFor, reaskRequest, termsOf, type ArgumentsRepair, type ContractPolicy, type ContractTerms, type Violation } from '../contract/index.js';
import { errors, type GatewayError } from '../errors.js';
import type { Gateway } from './gateway.js';
import type { AbortSignalLike } from '../client-abort.js';
import type { ReaskOutcome } from '../metrics/index.js';
import type { RepairBudget } from '../util/bounded-json.js';
import { summarizeFindings } from '../repair/index.js';
import type { Finding } from '../repair/types.js';
import type { ResolvedModel } from '../routing/router.js';
import type { RequestInfo } from './request-info.js';

// One request's tool contract at work (docs/contract.md), for JSON answers and streams alike:
// the terms and the served model's policy, the re-asks spent, and what each judged answer tells
// the metrics, the request journal and the client.

export class ContractRun {
  /** Re-asks sent so far. */
  reasks = 0;
  /** A re-ask is out: the next judged answer settles its outcome. */
  private reaskPending = false;
  /** Calls dropped under `extraCalls: trim` (said in x-toolgate-warnings). */
  trimmed = 0;

  constructor(
    readonly terms: ContractTerms,
    readonly policy: ContractPolicy,
    readonly request: ChatRequest,
    readonly served: ResolvedModel,
    readonly budget: RepairBudget,
    private readonly gateway: Gateway,
    private readonly info: RequestInfo,
    private readonly signal: AbortSignalLike,
  ) {}

  get trimExtra(): boolean {
    return this.policy.extraCalls === 'trim';
  }

  /** The model re-asks go to: the one that answered, without its fallbacks. */
  get reaskTarget(): ResolvedModel {
    return { ...this.served, fallbacks: [] };
  }

  /** An answer that kept the contract (after a re-ask: the re-ask complied). */
  complied(trimmed: number): void {
    this.noteTrimmed(trimmed);
    if (this.reaskPending) {
      this.reaskEnded('complied');
      this.note([], 'complied');
    }
  }

  /**
   * An answer that broke it: counted, its tokens charged (it was an upstream answer), noted for the
   * inspector. Returns whether to ask again (`lastAttemptMs`: how long that answer took).
   */
  violated(violations: readonly Violation[], usage: Usage | undefined, trimmed: number, lastAttemptMs: number): boolean {
    this.noteTrimmed(trimmed);
    if (this.reaskPending) this.reaskEnded('violated');
    const metrics = this.metrics();
    for (const violation of violations) metrics.contractViolation(violation.kind);
    const again = this.mayReask(lastAttemptMs);
    // An answer the client does not get is charged here; one handed on is charged with the answer.
    if (usage && (again || this.strict)) this.info.costed(metrics.usage(usage, this.info.keyName));
    this.note(violations, again ? 'reask' : this.strict ? 'error' : 'pass');
    if (again) {
      this.reasks += 1;
      this.reaskPending = true;
    }
    return again;
  }

  /** The re-ask call itself failed: the client gets the contract error (the answer it has broken the contract). */
  reaskFailed(): void {
    this.reaskEnded('failed');
  }

  /** The request of the next re-ask: the original, the model's answer, the corrective message. */
  reaskRequest(answer: AssistantMessage, violations: readonly Violation[]): ChatRequest {
    return reaskRequest(this.request, answer, violations, this.terms);
  }

  /**
   * The answer stays broken (no re-ask left, or `pass`) and the policy hands it on: the warnings
   * header value; undefined under the strict policy (`error`), whose answer is the contract error.
   */
  passWarnings(violations: readonly Violation[]): string | undefined {
    if (this.strict) return undefined;
    const counts = new Map<string, number>();
    for (const violation of violations) counts.set(`contract_${violation.kind}`, (counts.get(`contract_${violation.kind}`) ?? 0) + 1);
    return [...counts].map(([kind, count]) => `${kind}=${count}`).join(',');
  }

  /**
   * The answer the client gets had arguments repaired without changing meaning (judge.ts): counted
   * in `toolgate_repairs_total`; the `x-toolgate-repairs` value (in a stream, `toolgate_repairs`).
   */
  handedOn(repairs: readonly ArgumentsRepair[]): string | undefined {
    if (repairs.length === 0) return undefined;
    const findings: Finding[] = repairs.map((repair) => ({ kind: REPAIR_KINDS[repair], index: -1, detail: 'tool-call arguments of the answer' }));
    this.gateway.metrics.repairs(findings);
    return summarizeFindings(findings);
  }

  /** `x-toolgate-warnings` for calls dropped under `extraCalls: trim`. */
  trimWarning(): string | undefined {
    return this.trimmed > 0 ? `contract_parallel_calls_trimmed=${this.trimmed}` : undefined;
  }

  /** The 502 the client gets: what was violated, by which upstream, after how many re-asks. */
  failure(violations: readonly Violation[]): GatewayError {
    const detail = violations.map((violation) => violation.message).join('; ');
    return errors.toolContractViolation(this.served.provider.settings.name, this.served.upstreamModel, detail, violations[0]?.param ?? 'tools', this.reasks);
  }

  /** `onViolation: error`: once the re-asks ran out, the contract error instead of the last answer. */
  private get strict(): boolean {
    return this.policy.onViolation === 'error';
  }

  private mayReask(lastAttemptMs: number): boolean {
    const policy = this.policy;
    // `reask` and `error` re-ask (up to maxReasks); `pass` hands the answer on at once.
    if (policy.onViolation === 'pass' || this.reasks >= policy.maxReasks || this.signal.aborted) return false;
    // The next answer should take about as long as the last one: it must fit in what is left.
    return this.info.elapsedMs() + lastAttemptMs <= policy.deadlineMs;
  }

  private reaskEnded(outcome: ReaskOutcome): void {
    this.reaskPending = false;
    this.metrics().reask(outcome);
  }

  private noteTrimmed(trimmed: number): void {
    if (trimmed === 0) return;
    this.trimmed += trimmed;
    this.note([{ kind: 'parallel_calls', message: `parallel_tool_calls is false: ${trimmed} extra call(s) dropped (contract.extraCalls: trim)` }], 'trimmed');
  }

  private note(violations: ReadonlyArray<{ kind: string; message: string }>, outcome: 'complied' | 'reask' | 'error' | 'pass' | 'trimmed'): void {
    this.info.contractChecked({
      reask: this.reasks,
      provider: this.served.provider.settings.name,
      model: this.served.upstreamModel,
      violations: violations.map(({ kind, message }) => ({ kind, message: message.slice(0, 500) })),
      outcome,
    });
  }

  private metrics() {
    return this.gateway.metrics.forModel(this.served.provider.settings.name, this.served.requested, this.served.upstreamModel);
  }
}

const REPAIR_KINDS = { syntax: 'answer_arguments_repaired', coerced: 'answer_arguments_coerced' } as const satisfies Record<ArgumentsRepair, string>;

/** The contract of a request served by `served`, or undefined when there is nothing to enforce (no tools, no tool_choice, or disabled). */
export function contractRunFor(
  request: ChatRequest,
  served: ResolvedModel,
  parts: { gateway: Gateway; info: RequestInfo; signal: AbortSignalLike; budget: RepairBudget },
): ContractRun | undefined {
  const terms = termsOf(request);
  if (!terms) return undefined;
  const policy = policyFor(parts.gateway.loaded.config.contract, served.config);
  if (!policy.enabled) return undefined;
  return new ContractRun(terms, policy, request, served, parts.budget, parts.gateway, parts.info, parts.signal);
}
