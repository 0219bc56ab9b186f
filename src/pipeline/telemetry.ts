import type { RawChatRequest, Usage } from '../api/chat-types.js';
import type { Gateway } from './gateway.js';
import { isRecord } from '../is-record.js';
import { taskKeyFor, type LlmCallOutcome, type ModelMetrics, type ResponseMode } from '../metrics/index.js';
import type { ResolvedModel } from '../routing/router.js';
import { scopeOf } from '../util/scope.js';
import type { NormalizeReport } from '../toolcalls/normalize.js';
import type { AnswerWarnings } from '../providers/answer-warnings.js';
import type { RequestInfo } from './request-info.js';

// What one request tells the metrics: every upstream call and its outcome (labelled with the
// target that served it — the requested model or a fallback), how the answer's tool calls were
// obtained, tokens and cost (charged to the gateway key's budget), and the task it belongs to.

export class RequestTelemetry {
  private readonly taskKey: string;
  private readonly started = performance.now();
  private firstTokenSeen = false;

  constructor(
    private readonly gateway: Gateway,
    private readonly info: RequestInfo,
    request: RawChatRequest,
    headerTaskId: string | undefined,
  ) {
    this.taskKey = taskKeyFor({
      headerTaskId,
      user: typeof request.user === 'string' ? request.user : undefined,
      metadata: isRecord(request.metadata) ? request.metadata : undefined,
      messages: request.messages,
      scope: scopeOf(info.keyName),
    });
  }

  private served: { target: ResolvedModel; metrics: ModelMetrics } | undefined;

  /** The target's metric handle, looked up once per target of this request (three uses per answer). */
  private metricsFor(target: ResolvedModel): ModelMetrics {
    if (this.served?.target !== target) {
      this.served = { target, metrics: this.gateway.metrics.forModel(target.provider.settings.name, target.requested, target.upstreamModel) };
    }
    return this.served.metrics;
  }

  llmCall(target: ResolvedModel, outcome: LlmCallOutcome, seconds = 0): void {
    this.metricsFor(target).llmCall(this.info.endpoint, outcome);
    this.info.llmCall(seconds, this.gateway.metrics.taskCall(this.taskKey));
  }

  /** First content or tool-call delta of a stream (or the whole answer for JSON). */
  firstToken(target: ResolvedModel): void {
    if (this.firstTokenSeen) return;
    this.firstTokenSeen = true;
    this.info.firstToken();
    this.metricsFor(target).firstToken((performance.now() - this.started) / 1000);
  }

  /** `warnings`: what the adapter noted on the answer (calls Gemini called unexpected are calls to undeclared tools too; normalization counted those it saw). */
  answer(target: ResolvedModel, report: NormalizeReport, mode: ResponseMode, usage: Usage | undefined, toolsDeclared: boolean, warnings?: AnswerWarnings): void {
    const metrics = this.gateway.metrics;
    const modelMetrics = this.metricsFor(target);
    if (toolsDeclared) modelMetrics.toolResponse(mode, report.toolCalls);
    for (const alias of report.aliased) modelMetrics.toolNameAliased(alias.how);
    const unknownNames = Math.max(report.unknownNames, warnings?.unexpected_tool_call ?? 0);
    if (unknownNames > 0) metrics.unknownToolName(unknownNames);
    if (report.invalidArguments > 0) metrics.invalidToolArguments(report.invalidArguments);
    if (usage) this.info.costed(modelMetrics.usage(usage, this.info.keyName));
    if (report.toolCalls === 0) metrics.taskEnd(this.taskKey);
  }
}

export function taskHeaderOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['x-toolgate-task-id'];
  return typeof value === 'string' ? value : undefined;
}
