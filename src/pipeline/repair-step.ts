import type { FastifyBaseLogger as Logger } from 'fastify';
import type { ChatRequest, RawChatRequest } from '../api/chat-types.js';
import type { Gateway } from './gateway.js';
import { ofThisConversation } from '../ledger/conversation.js';
import { ledgerQueryFor } from '../ledger/fingerprint.js';
import { EMPTY_SNAPSHOT } from '../ledger/types.js';
import { declaredToolsOnce, repairRequest, summarizeFindings, summarizeWarnings } from '../repair/index.js';
import { targetNeedsReasoning } from './reasoning-step.js';
import { reasoningRestorer, type ReasoningRestorer } from './reasoning-support.js';
import type { Finding, RepairOptions } from '../repair/types.js';
import { scopeOf } from '../util/scope.js';
import type { WorkBudgets } from '../state/work-budgets.js';

export interface RepairOutcome {
  /** The strict type: produced (and checked) by the repair passes. */
  request: ChatRequest;
  findings: Finding[];
  /** Value of the x-toolgate-repairs header; undefined when nothing was repaired. */
  header?: string;
  /** Value of the x-toolgate-warnings header (advisory findings); undefined when none. */
  warnings?: string;
  /** Restores dropped reasoning for a target found to need it later (a fallback, or one that said so); absent when the ledger had nothing. */
  restoreReasoning?: ReasoningRestorer;
}

/**
 * Fetches what the ledger knows about this history (the only I/O), then runs the pure passes.
 * `budgets`: the tenant's best-effort work budgets, when the caller already looked them up.
 */
export async function repairStep(
  request: RawChatRequest,
  gateway: Gateway,
  log: Logger,
  options: RepairOptions = gateway.repairOptions,
  ledgerScope?: string,
  budgets: WorkBudgets = gateway.workBudgets.forScope(scopeOf(ledgerScope)),
): Promise<RepairOutcome> {
  // Scoped per gateway key: two tenants with the same opening prompt never share ledger entries.
  const query = ledgerQueryFor(request, ledgerScope);
  const found =
    query.callIds.length > 0 || query.prefixFingerprints.length > 0 ? await gateway.ledger.forScope(scopeOf(ledgerScope)).lookup(query) : EMPTY_SNAPSHOT;
  // A call id alone is no proof: only what was answered in this conversation is restored.
  const ledger = ofThisConversation(found, request.messages, ledgerScope);
  const context = {
    declaredTools: declaredToolsOnce(request),
    ledger,
    ledgerScope,
    options,
    repairBudget: budgets.repair,
  };
  // Reasoning is restored for the requested target only when it needs it (reasoning-support.ts).
  const restoreReasoning = ledger.byCallId.size > 0 && options === gateway.repairOptions && targetNeedsReasoning(gateway, request.model, scopeOf(ledgerScope));
  const result = repairRequest(request, restoreReasoning ? { ...context, restoreReasoning } : context);
  if (result.findings.length > 0 && options === gateway.repairOptions) {
    gateway.metrics.repairs(result.findings);
    const loops = result.findings.filter((finding) => finding.kind === 'tool_loop').length;
    if (loops > 0) gateway.metrics.toolLoop(loops);
    log.debug({ findings: result.findings }, 'history repaired');
  }
  const warnings = summarizeWarnings(result.findings);
  // Advisory findings change nothing, so without this line nobody would learn of them.
  if (warnings && options === gateway.repairOptions) logAdvisory(log, warnings, result.findings);
  const outcome: RepairOutcome = { request: result.request, findings: result.findings, header: summarizeFindings(result.findings), warnings };
  if (ledger.byCallId.size > 0 && options.mode === 'repair' && !options.disabled.has('restore-reasoning')) outcome.restoreReasoning = reasoningRestorer(context);
  return outcome;
}

/** The warn line for advisory findings (x-toolgate-warnings): the first eight, details cut to 200 characters. */
export function logAdvisory(log: Logger, warnings: string, findings: readonly Finding[]): void {
  const advisory = findings.filter((finding) => finding.advisory === true).slice(0, 8);
  log.warn({ warnings, findings: advisory.map(({ kind, index, detail }) => ({ kind, index, detail: detail.slice(0, 200) })) }, 'request history has advisory findings (x-toolgate-warnings)');
}
