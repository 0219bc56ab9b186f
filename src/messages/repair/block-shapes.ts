import { errors } from '../../errors.js';
import { isRecord } from '../../is-record.js';
import type { Finding } from '../../repair/types.js';
import type { Block, MessageParam, RawMessageParam } from '../types.js';
import { messagesFinding, type MessagesHistory, type MessagesPassResult } from './types.js';

// Pass `block-shapes`: every block an object with a `type`. Clients and hand-rolled proxies send
// bare strings in block lists, blocks without `type` ({tool_use_id, content}, {id, name, input},
// {text}), and tool_result content as an object or number. Bare strings become text blocks,
// untyped blocks are typed from their keys, odd tool_result content becomes a string. A block
// that cannot be told is refused (400, as Anthropic does); with the pass disabled, so is every
// bare string and untyped block. One walk over the blocks.

export const BLOCK_SHAPES = 'block-shapes';

export function shapeBlocks(system: string | unknown[] | undefined, messages: readonly RawMessageParam[], enabled: boolean): MessagesPassResult {
  const findings: Finding[] = [];
  const history: MessagesHistory = { messages: messages.map((message, index) => ({ role: message.role, content: shapeContent(message.content, index, `messages[${index}].content`, findings, enabled) }) satisfies MessageParam) };
  if (system !== undefined) history.system = shapeContent(system, -1, 'system', findings, enabled);
  return { history, findings };
}

/** The content with every block typed; the same array when every block already was. */
function shapeContent(content: string | unknown[], index: number, param: string, findings: Finding[], enabled: boolean): string | Block[] {
  if (typeof content === 'string') return content;
  let out: Block[] | undefined;
  content.forEach((raw, at) => {
    const block = shapeBlock(raw, index, `${param}[${at}]`, findings, enabled);
    if (block !== raw) out ??= content.slice(0, at) as Block[];
    out?.push(block);
  });
  return out ?? (content as Block[]);
}

function shapeBlock(raw: unknown, index: number, param: string, findings: Finding[], enabled: boolean): Block {
  const block = typedBlock(raw);
  if (block === undefined || (!enabled && block !== raw)) {
    throw errors.invalidRequest(`${param}: Input should be a valid content block (an object with a 'type').`, param, 'invalid_value');
  }
  if (block !== raw) findings.push(messagesFinding('block_type_inferred', index, `${param} typed as '${block.type}'`));
  if (block.type === 'tool_result' && !resultContentOk(block.content)) {
    if (!enabled) throw errors.invalidRequest(`${param}.content: Input should be a valid string or list of blocks.`, `${param}.content`, 'invalid_value');
    findings.push(messagesFinding('content_stringified', index, `${param}.content given as ${typeof block.content} turned into a string`));
    return { ...block, content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content) ?? '' };
  }
  return block;
}

/** The block `raw` stands for (itself when already typed); undefined when it cannot be told. */
function typedBlock(raw: unknown): Block | undefined {
  if (typeof raw === 'string') return { type: 'text', text: raw };
  if (!isRecord(raw)) return undefined;
  if (typeof raw.type === 'string') return raw as Block;
  if (raw.type !== undefined && raw.type !== null) return undefined;
  if (typeof raw.tool_use_id === 'string') return { ...raw, type: 'tool_result' };
  if (typeof raw.name === 'string' && 'input' in raw) return { ...raw, type: 'tool_use' };
  if (typeof raw.thinking === 'string') return { ...raw, type: 'thinking' };
  if (typeof raw.text === 'string') return { ...raw, type: 'text' };
  if (isRecord(raw.source)) return { ...raw, type: 'image' };
  return undefined;
}

/** tool_result content: absent, a string, or a list of blocks. */
function resultContentOk(content: unknown): boolean {
  return content === undefined || typeof content === 'string' || Array.isArray(content);
}
