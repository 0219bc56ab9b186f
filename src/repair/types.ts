import type { RawChatRequest, ToolDefinition } from '../api/chat-types.js';
import type { LedgerSnapshot } from '../ledger/types.js';
import type { RepairBudget } from '../util/bounded-json.js';

/**
 * One thing a pass noticed (and, in repair mode, fixed). `index` is the message index in the request
 * as that pass saw it (earlier passes may have inserted or removed messages), or -1 for request-level.
 */
export interface Finding {
  kind: string;
  index: number;
  detail: string;
  /**
   * True when the finding itself changed nothing: a loop without loopNote, corrupted text kept, a
   * ledger candidate not used, the "this match was a guess" note beside a repair. Advisory findings
   * are left out of the x-toolgate-repairs header and never make strict mode reject.
   */
  advisory?: boolean;
}

export interface RepairOptions {
  mode: 'repair' | 'strict';
  /** Pass names switched off in config. */
  disabled: ReadonlySet<string>;
  missingResultText: string;
  corruptedContent: 'drop' | 'keep';
  loopThreshold: number;
  loopNote: boolean;
}

export interface RepairContext {
  /** Declared tools by name, after tool-definition normalization. */
  declaredTools: ReadonlyMap<string, ToolDefinition>;
  ledger: LedgerSnapshot;
  options: RepairOptions;
  /** The scope the pipeline passed to ledgerQueryFor (tenant separation); same value here. */
  ledgerScope?: string;
  /** The request's tenant's jsonrepair budget (the arguments pass spends it). */
  repairBudget: RepairBudget;
  /** The target needs the reasoning of earlier tool calls back (src/pipeline/reasoning-support.ts): restore-reasoning runs. */
  restoreReasoning?: boolean;
}

export interface PassResult {
  request: RawChatRequest;
  findings: Finding[];
}

/** A pure repair pass: no I/O, never mutates its input. */
export interface RepairPass {
  name: string;
  run(request: RawChatRequest, context: RepairContext): PassResult;
}
