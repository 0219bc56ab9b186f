import type { FindingKind } from '../../repair/kinds.js';
import type { Finding } from '../../repair/types.js';
import type { MessageParam } from '../types.js';

// Messages-dialect repair: pure passes over `system` and `messages`, before translation. Each
// returns findings `{kind, index, detail}` (index = the message's position, -1 for `system`) like
// the chat passes, so they feed the same header and metric. What chat repair already does after
// translation (ledger restore, orphan results, missing results, ids, arguments) is not repeated here.

export const MESSAGES_FINDING_KINDS = ['block_type_inferred', 'content_stringified', 'empty_text_removed'] as const satisfies readonly FindingKind[];

export type MessagesFindingKind = (typeof MESSAGES_FINDING_KINDS)[number];

export interface MessagesHistory {
  system?: string | MessageParam['content'];
  messages: MessageParam[];
}

export interface MessagesPassResult {
  history: MessagesHistory;
  findings: Finding[];
}

export interface MessagesPass {
  /** The name `repair.disabled` uses. */
  name: string;
  run(history: MessagesHistory): MessagesPassResult;
}

export function messagesFinding(kind: MessagesFindingKind, index: number, detail: string): Finding {
  return { kind, index, detail };
}
