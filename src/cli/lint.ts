import { readFileSync } from 'node:fs';
import { parseChatRequest } from '../api/chat-schema.js';
import type { ChatRequest, RawChatRequest } from '../api/chat-types.js';
import { loadConfigFile } from '../config/load.js';
import { isGatewayError } from '../errors.js';
import { EMPTY_SNAPSHOT } from '../ledger/types.js';
import { RepairBudget } from '../util/bounded-json.js';
import { DEFAULT_REPAIR_OPTIONS, declaredToolsOf, repairRequest, strictVerdictOf, summarizeFindings } from '../repair/index.js';
import type { Finding, RepairOptions } from '../repair/types.js';

// `toolgate lint <file.json>`: POST /v1/toolgate/lint offline, on a saved chat completions body or a
// bare messages array. The same passes (one repairRequest run, strict mode's verdict derived from it
// with strictModeError); no call ledger, so a history that a running gateway would restore from its
// ledger is judged on what the file holds.

export interface LintReport {
  object: 'toolgate.lint';
  valid: boolean;
  findings: Finding[];
  summary: string | null;
  strict_mode_error: string | null;
  repaired_request: ChatRequest | null;
  /** Set when repair mode gives up: the 400 a gateway would answer. */
  unrepairable_error: string | null;
}

/** Exit codes: 0 valid or repairable, 1 the history cannot be repaired, 2 the file is not a request. */
export const LINT_EXIT = { ok: 0, unrepairable: 1, badInput: 2 } as const;

export class LintInputError extends Error {
  override name = 'LintInputError';
}

/** A saved request body, or just its messages (an array), as a chat completions request. */
export function lintInput(text: string): RawChatRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LintInputError(`not JSON: ${(error as Error).message}`);
  }
  const body = Array.isArray(value) ? { model: 'lint', messages: value } : value;
  if (body && typeof body === 'object' && !Array.isArray(body) && !('model' in body)) (body as Record<string, unknown>).model = 'lint';
  try {
    return parseChatRequest(body);
  } catch (error) {
    if (isGatewayError(error)) throw new LintInputError(error.message);
    throw error;
  }
}

// The CLI is one local user: one jsonrepair budget for the process.
const CLI_REPAIR_BUDGET = new RepairBudget();

/** One repair-mode run (the endpoint's repairStep without the ledger lookup) and strict mode's verdict from it. */
export function lint(request: RawChatRequest, options: RepairOptions = DEFAULT_REPAIR_OPTIONS): LintReport {
  let repaired: { request: ChatRequest; findings: Finding[] };
  try {
    repaired = repairRequest(request, { declaredTools: declaredToolsOf(request), ledger: EMPTY_SNAPSHOT, options: { ...options, mode: 'repair' }, repairBudget: CLI_REPAIR_BUDGET });
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    return { object: 'toolgate.lint', valid: false, findings: [], summary: null, strict_mode_error: null, repaired_request: null, unrepairable_error: error.message };
  }
  return {
    object: 'toolgate.lint',
    valid: repaired.findings.length === 0,
    findings: repaired.findings,
    summary: summarizeFindings(repaired.findings) ?? null,
    strict_mode_error: strictVerdictOf(request, repaired),
    repaired_request: repaired.request,
    unrepairable_error: null,
  };
}

/** The repair section of a config file, as the gateway reads it (src/app.ts). */
export function repairOptionsFrom(configPath: string | undefined): RepairOptions {
  if (!configPath) return DEFAULT_REPAIR_OPTIONS;
  const { repair } = loadConfigFile(configPath).config;
  return {
    mode: repair.mode,
    disabled: new Set(repair.disabled),
    missingResultText: repair.missingResultText,
    corruptedContent: repair.corruptedContent,
    loopThreshold: repair.loopThreshold,
    loopNote: repair.loopNote,
  };
}

export function formatReport(file: string, report: LintReport): string {
  const lines: string[] = [];
  if (report.unrepairable_error) {
    lines.push(`${file}: cannot be repaired; a gateway would answer 400:`, `  ${report.unrepairable_error}`);
    return `${lines.join('\n')}\n`;
  }
  if (report.valid) return `${file}: valid, nothing to repair\n`;
  lines.push(`${file}: ${report.summary ?? 'advice only'}`);
  for (const finding of report.findings) {
    const where = finding.index >= 0 ? `messages[${finding.index}]` : 'request';
    lines.push(`  ${where}: ${finding.kind}${finding.advisory ? ' (advice, nothing changed)' : ''}: ${finding.detail}`);
  }
  if (report.strict_mode_error) lines.push('  in strict mode (repair.mode: strict) the gateway would reject it instead.');
  lines.push('  --json prints the repaired request.');
  return `${lines.join('\n')}\n`;
}

export function lintCommand(file: string, options: { config?: string; json?: boolean }): number {
  let request: RawChatRequest;
  try {
    request = lintInput(readFileSync(file, 'utf8'));
  } catch (error) {
    process.stderr.write(`toolgate lint: ${file}: ${(error as Error).message}\n`);
    return LINT_EXIT.badInput;
  }
  const report = lint(request, repairOptionsFrom(options.config));
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(file, report));
  return report.unrepairable_error ? LINT_EXIT.unrepairable : LINT_EXIT.ok;
}
