import type { RequestInfo } from '../pipeline/request-info.js';
import { repairDiff, type RepairDiff } from './diff.js';
import { argumentsView, textView, type ViewOptions } from './view.js';

// One request as the inspector stores it, built from the request journal when the response is
// done. Only what the journal holds; message text per ViewOptions; the whole record is then
// scrubbed of configured secrets by the store's caller.

export type Outcome = 'success' | 'client_error' | 'upstream_error' | 'gateway_error' | 'aborted';
export const OUTCOMES: readonly Outcome[] = ['success', 'client_error', 'upstream_error', 'gateway_error', 'aborted'];

export interface RequestEnd {
  id: string;
  method: string;
  path: string;
  status: number;
  /** The client left before the response was complete. */
  aborted: boolean;
  latencyMs: number;
}

/** What the list shows and filters on. */
export interface RecordSummary {
  id: string;
  time: string;
  endpoint: string;
  stream: boolean;
  model?: string;
  provider?: string;
  upstreamModel?: string;
  keyName?: string;
  status: number;
  outcome: Outcome;
  latencyMs: number;
  ttfbMs?: number;
  totalTokens?: number;
  costUsd?: number;
  repairs: number;
  fallback: boolean;
  /** The text format tool calls were read from, when they were. */
  textCalls?: string;
  attempts: number;
}

export interface TextCallsView {
  format: string;
  /** The part of the upstream's text the calls were read from (text per ViewOptions). */
  raw?: string;
  rawLength?: number;
  /** What stayed as content for the client. */
  content?: string;
  calls: Array<{ name: string; arguments: { keys?: string[]; text: string } }>;
}

export interface InspectorRecord extends RecordSummary {
  method: string;
  path: string;
  error?: string;
  usage?: unknown;
  llmCalls: number;
  taskLlmCalls?: number;
  toolMode?: string;
  repairsHeader?: string;
  findings: Array<{ target: string; kind: string; index: number; detail: string; advisory?: boolean }>;
  diffs: RepairDiff[];
  textCallsDetail?: TextCallsView;
  /** The reasoning the client got: its length always, its text only with captureContent. */
  reasoning?: { length: number; text: string };
  aliasing: Array<{ from: string; to: string; how: string }>;
  normalizer?: { toolCalls: number; unknownNames: number; invalidArguments: number; repairedArguments: number; malformedCalls: number };
  attemptsDetail: RequestInfo['attempts'];
  /** Answers checked against the request's tool contract that broke it, and what came of each (re-asks, trims). */
  contract?: RequestInfo['contract'];
  warnings: string[];
  /** Parts were left out to fit inspector.maxRecordBytes. */
  truncated?: boolean;
}

export function outcomeOf(status: number, aborted: boolean, error: string | undefined): Outcome {
  if (aborted) return 'aborted';
  if (status >= 500 && status !== 500 && status < 600) return 'upstream_error';
  if (status >= 500) return 'gateway_error';
  if (status >= 400) return 'client_error';
  // A stream that started (200) and then failed.
  return error === undefined ? 'success' : 'upstream_error';
}

export function buildRecord(info: RequestInfo, end: RequestEnd, options: ViewOptions): InspectorRecord {
  const facts = info.facts;
  const answer = info.answer;
  const report = answer?.report;
  const findings = info.repairs.flatMap((note) =>
    note.findings.map((finding) => ({ target: note.target, kind: finding.kind, index: finding.index, detail: finding.detail.slice(0, 500), ...(finding.advisory ? { advisory: true } : {}) })),
  );
  let offset = 0;
  const diffs = info.repairs.map((note) => {
    const diff = repairDiff(note, offset, options);
    offset += note.findings.length;
    return diff;
  });
  const targets = new Set(info.attempts.map((attempt) => `${attempt.provider}/${attempt.model}`));
  const textCalls = report?.mode === 'text' && answer ? textCallsOf(answer, report.format ?? 'text', options) : undefined;
  const warnings = facts.warningsHeader ? [facts.warningsHeader] : [];
  if (report && report.unknownNames > 0) warnings.push(`${report.unknownNames} call(s) to undeclared tool names`);
  if (report && report.invalidArguments > 0) warnings.push(`${report.invalidArguments} call(s) whose arguments break the tool's schema`);
  if (report && report.malformedCalls > 0) warnings.push(`${report.malformedCalls} text call(s) could not be read`);
  if (report && report.unchecked.length > 0) warnings.push(`arguments not fully checked against the tool's schema: ${report.unchecked.join('; ')}`);
  const usage = facts.usage;
  return {
    id: end.id,
    time: new Date(info.startedAt).toISOString(),
    endpoint: info.endpoint,
    method: end.method,
    path: end.path,
    stream: facts.stream === true,
    model: facts.model,
    provider: facts.provider,
    upstreamModel: facts.upstreamModel,
    keyName: facts.keyName,
    status: end.status,
    outcome: outcomeOf(end.status, end.aborted, facts.error),
    error: facts.error?.slice(0, 1_000),
    latencyMs: end.latencyMs,
    ttfbMs: facts.ttfbMs,
    totalTokens: usage ? usage.total_tokens || (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) : undefined,
    usage,
    costUsd: facts.costUsd,
    llmCalls: info.llmCalls,
    taskLlmCalls: facts.taskCalls,
    toolMode: facts.toolMode,
    repairs: findings.filter((finding) => finding.advisory !== true).length,
    repairsHeader: facts.repairsHeader,
    findings,
    diffs,
    fallback: facts.fallback || targets.size > 1,
    textCalls: textCalls?.format,
    textCallsDetail: textCalls,
    ...(answer?.reasoning ? { reasoning: { length: answer.reasoning.length, text: textView(answer.reasoning, options) } } : {}),
    aliasing: report?.aliased.map(({ from, to, how }) => ({ from, to, how })) ?? [],
    normalizer: report
      ? { toolCalls: report.toolCalls, unknownNames: report.unknownNames, invalidArguments: report.invalidArguments, repairedArguments: report.repairedArguments, malformedCalls: report.malformedCalls }
      : undefined,
    attempts: info.attempts.length,
    attemptsDetail: info.attempts,
    ...(info.contract.length > 0 ? { contract: info.contract } : {}),
    warnings,
  };
}

/** The upstream text the calls came from: what the client did not get as content (common head and tail removed). */
function textCallsOf(answer: NonNullable<RequestInfo['answer']>, format: string, options: ViewOptions): TextCallsView {
  const calls = answer.calls.map((call) => ({ name: call.name, arguments: argumentsView(call.arguments, options) }));
  const upstream = answer.upstreamText;
  if (upstream === undefined) return { format, calls };
  const content = answer.clientText ?? '';
  let head = 0;
  while (head < upstream.length && head < content.length && upstream[head] === content[head]) head++;
  let tail = 0;
  while (tail < upstream.length - head && tail < content.length - head && upstream[upstream.length - 1 - tail] === content[content.length - 1 - tail]) tail++;
  const raw = upstream.slice(head, upstream.length - tail);
  return { format, raw: textView(raw, options), rawLength: raw.length, content: textView(content, options), calls };
}

export function summaryOf(record: InspectorRecord): RecordSummary {
  const { id, time, endpoint, stream, model, provider, upstreamModel, keyName, status, outcome, latencyMs, ttfbMs, totalTokens, costUsd, repairs, fallback, textCalls, attempts } = record;
  return { id, time, endpoint, stream, model, provider, upstreamModel, keyName, status, outcome, latencyMs, ttfbMs, totalTokens, costUsd, repairs, fallback, textCalls, attempts };
}

/** The same record without its heavy parts (diff bodies, text), for records over the per-record cap. */
export function slimmed(record: InspectorRecord): InspectorRecord {
  return {
    ...record,
    diffs: record.diffs.map((diff) => ({ ...diff, hunks: diff.hunks.map((hunk) => ({ ...hunk, before: [], after: [] })), truncated: true })),
    textCallsDetail: record.textCallsDetail ? { format: record.textCallsDetail.format, rawLength: record.textCallsDetail.rawLength, calls: [] } : undefined,
    reasoning: record.reasoning ? { length: record.reasoning.length, text: '' } : undefined,
    findings: record.findings.slice(0, 50),
    attemptsDetail: record.attemptsDetail.slice(0, 20),
    truncated: true,
  };
}
