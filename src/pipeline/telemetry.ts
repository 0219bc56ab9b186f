import type { ChatRequest, Usage } from '../api/chat-types.js';
import type { Gateway } from '../gateway.js';
import { taskKeyFor, type LlmCallOutcome, type ModelMetrics, type ResponseMode } from '../metrics/index.js';
import type { NormalizeReport } from '../toolcalls/normalize.js';
import type { RequestInfo } from './request-info.js';

// What one request tells the metrics: every upstream call and its outcome, how the answer's
// tool calls were obtained, tokens and cost, and the task it belongs to (LLM calls per task).

export class RequestTelemetry {
  private readonly modelMetrics: ModelMetrics;
  private readonly taskKey: string;
  private readonly started = performance.now();
  private firstTokenSeen = false;

  constructor(
    private readonly gateway: Gateway,
    private readonly info: RequestInfo,
    provider: string,
    request: ChatRequest,
    upstreamModel: string,
    headerTaskId: string | undefined,
  ) {
    this.modelMetrics = gateway.metrics.forModel(provider, request.model, upstreamModel);
    this.taskKey = taskKeyFor({
      headerTaskId,
      user: typeof request.user === 'string' ? request.user : undefined,
      metadata: isRecord(request.metadata) ? request.metadata : undefined,
      messages: request.messages,
    });
  }

  llmCall(outcome: LlmCallOutcome): void {
    this.info.llmCalls += 1;
    this.modelMetrics.llmCall(this.info.endpoint, outcome);
    this.gateway.metrics.taskCall(this.taskKey);
  }

  /** First content or tool-call delta of a stream (or the whole answer for JSON). */
  firstToken(): void {
    if (this.firstTokenSeen) return;
    this.firstTokenSeen = true;
    this.modelMetrics.firstToken((performance.now() - this.started) / 1000);
  }

  answer(report: NormalizeReport, mode: ResponseMode, usage: Usage | undefined, toolsDeclared: boolean): void {
    const metrics = this.gateway.metrics;
    if (toolsDeclared) this.modelMetrics.toolResponse(mode, report.toolCalls);
    for (const alias of report.aliased) this.modelMetrics.toolNameAliased(alias.how);
    if (report.unknownNames > 0) metrics.unknownToolName(report.unknownNames);
    if (report.invalidArguments > 0) metrics.invalidToolArguments(report.invalidArguments);
    if (usage) this.modelMetrics.usage(usage);
    if (report.toolCalls === 0) metrics.taskEnd(this.taskKey);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
