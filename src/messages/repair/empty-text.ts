import type { Finding } from '../../repair/types.js';
import type { Block, MessageParam } from '../types.js';
import { messagesFinding, type MessagesHistory, type MessagesPass } from './types.js';

// Pass `empty-text-blocks`: Anthropic refuses empty text blocks ("text content blocks must be
// non-empty"), and clients send them back anyway (an assistant turn that was only a tool call,
// "\n\n" before a tool_use). Empty text blocks are dropped; a whitespace-only one is dropped when
// its message has other blocks (it carries nothing). A message left without blocks is dropped.
// One walk over the blocks.

export const emptyTextPass: MessagesPass = {
  name: 'empty-text-blocks',
  run(history) {
    const findings: Finding[] = [];
    const messages: MessageParam[] = [];
    history.messages.forEach((message, index) => {
      if (typeof message.content === 'string' || message.content.length === 0) {
        messages.push(message);
        return;
      }
      const kept = nonEmpty(message.content);
      if (kept.length === message.content.length) {
        messages.push(message);
        return;
      }
      const removed = message.content.length - kept.length;
      if (kept.length === 0) {
        findings.push(messagesFinding('empty_text_removed', index, `${message.role} message with only empty text removed`));
        return;
      }
      findings.push(messagesFinding('empty_text_removed', index, `${removed} empty text block(s) removed`));
      messages.push({ ...message, content: kept });
    });
    const out: MessagesHistory = { ...history, messages };
    if (Array.isArray(history.system)) {
      const kept = history.system.filter((block) => !isEmptyText(block));
      if (kept.length !== history.system.length) {
        findings.push(messagesFinding('empty_text_removed', -1, `${history.system.length - kept.length} empty system block(s) removed`));
        out.system = kept;
      }
    }
    return { history: out, findings };
  },
};

function isEmptyText(block: Block): boolean {
  return block.type === 'text' && (typeof block.text !== 'string' || block.text === '');
}

function isBlankText(block: Block): boolean {
  return block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '');
}

/** Without empty text blocks; without blank ones too when something else is left. */
function nonEmpty(blocks: Block[]): Block[] {
  const kept = blocks.filter((block) => !isEmptyText(block));
  const substantive = kept.filter((block) => !isBlankText(block));
  return substantive.length > 0 ? substantive : kept;
}
