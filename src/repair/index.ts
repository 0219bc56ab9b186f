import type { ChatRequest, RawChatRequest } from '../api/chat-types.js';
import { errors, type GatewayError } from '../errors.js';
import { argumentsPass } from './arguments.js';
import { callIdsPass } from './call-ids.js';
import { contentShapesPass } from './content-shapes.js';
import { corruptedContentPass } from './corrupted-content.js';
import { FINDING_KIND_LIST } from './kinds.js';
import { legacyFunctionsPass } from './legacy-functions.js';
import { orphanResultsPass } from './orphan-results.js';
import { pairResultsPass } from './pair-results.js';
import { restoreReasoningPass } from './restore-reasoning.js';
import { restoreToolCallsPass } from './restore-tool-calls.js';
import { resultIdsPass } from './result-ids.js';
import { toolDefinitionsPass } from './tool-definitions.js';
import { toolLoopPass } from './tool-loop.js';
import { isChatRequest, shapeProblems } from './checked.js';
import type { Finding, RepairContext, RepairOptions, RepairPass } from './types.js';
import { historyProblems } from './validate.js';

export { declaredToolsOf, declaredToolsOnce } from './tool-definitions.js';

export { DEFAULT_REPAIR_OPTIONS, FINDING_KINDS, FINDING_KIND_LIST, type FindingKind } from './kinds.js';

/**
 * The order matters:
 * - tool-definitions: request-level, independent of messages; first so everything sees chat tools.
 * - legacy-functions, content-shapes: one protocol and clean shapes for every later pass. Both keep
 *   prefix fingerprints unchanged (role function ≡ tool, parts ≡ string, null ≡ ""), so the ledger
 *   still recognizes the conversation.
 * - restore-tool-calls: before anything decides a result has no call (orphan) or a call has no
 *   result: the ledger may bring the calls back exactly.
 * - restore-reasoning: right after, on the calls as answered (before call-ids may rename one): the
 *   reasoning and signatures each answered call came with, for targets that need them.
 * - call-ids: unique ids before anything matches results to calls by id.
 * - result-ids: id-less results take the open calls of their assistant message.
 * - orphan-results: what still answers no call becomes user text (needs every matching tried first).
 * - pair-results: then every call gets its result right after it (moved or a "no result" note).
 * - arguments: per call, independent; after restore so restored calls are checked too.
 * - corrupted-content: after restore (dropping text would change fingerprints) and pairing (a
 *   dropped result keeps its place).
 * - tool-loop: last, on final ids and arguments; its note is appended at the very end.
 */
export const PASSES: readonly RepairPass[] = [
  toolDefinitionsPass,
  legacyFunctionsPass,
  contentShapesPass,
  restoreToolCallsPass,
  restoreReasoningPass,
  callIdsPass,
  resultIdsPass,
  orphanResultsPass,
  pairResultsPass,
  argumentsPass,
  corruptedContentPass,
  toolLoopPass,
];

export const PASS_NAMES: readonly string[] = PASSES.map((pass) => pass.name);

/** Passes whose job the final check (validate.ts) verifies; disabling one turns the check off. */
const STRUCTURAL_PASSES = ['legacy-functions', 'content-shapes', 'call-ids', 'result-ids', 'orphan-results', 'pair-results', 'arguments'];

function numbered(lines: readonly string[]): string {
  return lines.map((line, i) => `${i + 1}) ${line}`).join('; ');
}

function describe(finding: Finding): string {
  return finding.index >= 0 ? `messages[${finding.index}]: ${finding.detail} [${finding.kind}]` : `${finding.detail} [${finding.kind}]`;
}

function runPasses(request: RawChatRequest, context: RepairContext): { request: RawChatRequest; findings: Finding[]; changes: Finding[] } {
  let current = request;
  const findings: Finding[] = [];
  const changes: Finding[] = [];
  for (const pass of PASSES) {
    if (context.options.disabled.has(pass.name)) continue;
    const result = pass.run(current, context);
    findings.push(...result.findings);
    if (result.request !== current) {
      changes.push(...result.findings.filter((finding) => finding.advisory !== true));
      current = result.request;
    }
  }
  return { request: current, findings, changes };
}

/**
 * Runs the passes. A valid history comes back as the same object. In strict mode nothing is
 * changed: every finding that would change the request goes into one 400 listing every problem
 * (the loop note is advice, not a repair, so strict mode never adds it). In repair mode, a result
 * that still breaks the tool-history rules is a 400 saying what is wrong and what was tried.
 * Either way the result is a ChatRequest only once checked.ts has seen it is one.
 */
export function repairRequest(request: RawChatRequest, context: RepairContext): RepairedRequest {
  const options = context.options;
  if (options.mode === 'strict') {
    const run = runPasses(request, { ...context, options: { ...options, loopNote: false } });
    const refusal = strictModeError(run.changes, run.request !== request);
    if (refusal) throw refusal;
    return { request: checked(request, run.changes, options), findings: run.findings };
  }

  const run = runPasses(request, context);
  // Unchanged means the upstream sees exactly what the client sent: its own verdict is faithful.
  // With a structural pass switched off the operator chose to let the upstream decide.
  if (run.request !== request && !STRUCTURAL_PASSES.some((name) => options.disabled.has(name))) {
    const problems = historyProblems(run.request);
    if (problems.length > 0) {
      const tried = run.changes.length > 0 ? numbered(run.changes.map(describe)) : 'no repair applied';
      throw errors.unrepairableHistory(
        `The tool-calling history could not be repaired: ${numbered(problems)}. toolgate tried: ${tried}.`,
      );
    }
  }
  return { request: checked(run.request, run.changes, options), findings: run.findings };
}

/** The outcome of repair: the strict request type every later step reads, and what was found. */
export interface RepairedRequest {
  request: ChatRequest;
  findings: Finding[];
}

/** The repaired request as a ChatRequest, or a 400 naming what is still malformed (checked.ts). */
function checked(request: RawChatRequest, changes: readonly Finding[], options: RepairOptions): ChatRequest {
  if (isChatRequest(request)) return request;
  // The one unchecked way through, chosen in config: with a structural pass switched off the
  // operator lets the upstream decide, so the body goes on as the client shaped it.
  if (STRUCTURAL_PASSES.some((name) => options.disabled.has(name))) return request as ChatRequest;
  const problems = shapeProblems(request);
  const tried = changes.length > 0 ? numbered(changes.map(describe)) : 'no repair applied';
  throw errors.unrepairableHistory(`The request is malformed: ${numbered(problems)}. toolgate tried: ${tried}.`);
}

/**
 * The strict-mode 400 for the findings that changed the request (`changed`: the request changed
 * even without one), or null. Lint derives it from its one repair-mode run: the repair-mode
 * findings minus the advisory ones and the loop note are what strict mode would refuse.
 */
export function strictModeError(changes: readonly Finding[], changed = changes.length > 0): GatewayError | null {
  const problems = changes.length > 0 ? changes.map(describe) : changed ? ['the request needs changes'] : [];
  if (problems.length === 0) return null;
  return errors.unrepairableHistory(
    `The tool-calling history is invalid (strict mode, nothing was repaired). ${problems.length} problem(s): ${numbered(problems)}.`,
  );
}

/**
 * Strict mode's verdict derived from one repair-mode run (lint, `toolgate lint`): what the run changed,
 * without the loop note (strict mode never adds it). Null when strict mode would pass the request.
 */
export function strictVerdictOf(original: object, repaired: { request: object; findings: readonly Finding[] }): string | null {
  const changes = repaired.findings.filter((finding) => finding.advisory !== true && finding.kind !== 'tool_loop');
  const loopNote = repaired.findings.some((finding) => finding.kind === 'tool_loop' && finding.advisory !== true);
  return strictModeError(changes, repaired.request !== original && (changes.length > 0 || !loopNote))?.message ?? null;
}

/** `kind=count,...` for the x-toolgate-repairs header, in FINDING_KIND_LIST order; undefined when nothing was repaired. */
export function summarizeFindings(findings: readonly Finding[]): string | undefined {
  if (findings.length === 0) return undefined; // a valid history: no filter, no count map
  return summarize(findings.filter((finding) => finding.advisory !== true));
}

/**
 * `kind=count,...` of the advisory findings for the x-toolgate-warnings header: what toolgate saw
 * but did not change (an object repr a framework wrote into the history, a tool loop, a guessed
 * result match), so the client learns its history is being corrupted. Undefined when none.
 */
export function summarizeWarnings(findings: readonly Finding[]): string | undefined {
  if (findings.length === 0) return undefined;
  return summarize(findings.filter((finding) => finding.advisory === true));
}

function summarize(findings: readonly Finding[]): string | undefined {
  const counts = new Map<string, number>();
  for (const finding of findings) counts.set(finding.kind, (counts.get(finding.kind) ?? 0) + 1);
  if (counts.size === 0) return undefined;
  const order = (kind: string): number => {
    const at = (FINDING_KIND_LIST as readonly string[]).indexOf(kind);
    return at < 0 ? FINDING_KIND_LIST.length : at;
  };
  return [...counts.entries()]
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
    .map(([kind, count]) => `${kind}=${count}`)
    .join(',');
}
