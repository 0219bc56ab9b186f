import type { ContentBlock, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

// Runtime checks of what toolgate sends on /v1/messages against the shapes the @anthropic-ai/sdk
// types declare (Message, ContentBlock, RawMessageStreamEvent) and the event grammar of
// Anthropic's streaming reference: message_start, ping*, then per block content_block_start
// (index = the next block), deltas of that block's kind, content_block_stop, then message_delta
// and message_stop. Several streams may follow each other in one list (a tool loop).

const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);
const DELTA_FOR: Record<string, string[]> = { text: ['text_delta', 'citations_delta'], thinking: ['thinking_delta', 'signature_delta'], tool_use: ['input_json_delta'] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function blockProblems(block: ContentBlock | Record<string, unknown>, where: string): string[] {
  const b = block as Record<string, unknown>;
  if (b.type === 'text') return typeof b.text === 'string' ? [] : [`${where}: text without a string text`];
  if (b.type === 'thinking') return typeof b.thinking === 'string' && typeof b.signature === 'string' ? [] : [`${where}: thinking needs thinking and signature strings`];
  if (b.type === 'tool_use') {
    const problems: string[] = [];
    if (typeof b.id !== 'string' || b.id === '') problems.push(`${where}: tool_use without an id`);
    if (typeof b.name !== 'string' || b.name === '') problems.push(`${where}: tool_use without a name`);
    if (!isObject(b.input)) problems.push(`${where}: tool_use input is not an object`);
    return problems;
  }
  return [`${where}: unexpected block type ${String(b.type)}`];
}

function usageProblems(usage: unknown, where: string, partial: boolean): string[] {
  if (!isObject(usage)) return [`${where}: no usage`];
  const problems: string[] = [];
  const required = partial ? ['output_tokens'] : ['input_tokens', 'output_tokens'];
  for (const key of required) if (typeof usage[key] !== 'number' || (usage[key] as number) < 0) problems.push(`${where}: usage.${key} is not a count`);
  for (const key of ['cache_creation_input_tokens', 'cache_read_input_tokens']) {
    if (usage[key] !== undefined && usage[key] !== null && typeof usage[key] !== 'number') problems.push(`${where}: usage.${key} is not a count`);
  }
  return problems;
}

export function messageProblems(message: Message | Record<string, unknown>, options: { streaming?: boolean } = {}): string[] {
  const m = message as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof m.id !== 'string' || !m.id.startsWith('msg_')) problems.push(`id ${String(m.id)}`);
  if (m.type !== 'message') problems.push(`type ${String(m.type)}`);
  if (m.role !== 'assistant') problems.push(`role ${String(m.role)}`);
  if (typeof m.model !== 'string') problems.push('model');
  if (!Array.isArray(m.content)) problems.push('content is not a list');
  else m.content.forEach((block, i) => problems.push(...blockProblems(block as Record<string, unknown>, `content[${i}]`)));
  if (options.streaming ? m.stop_reason !== null : !STOP_REASONS.has(String(m.stop_reason))) problems.push(`stop_reason ${String(m.stop_reason)}`);
  if (m.stop_sequence !== null && typeof m.stop_sequence !== 'string') problems.push('stop_sequence');
  problems.push(...usageProblems(m.usage, 'message', false));
  return problems;
}

/** Problems with a list of stream events (one or more whole streams). */
export function eventProblems(events: readonly RawMessageStreamEvent[]): string[] {
  const problems: string[] = [];
  let state: 'idle' | 'started' | 'block' | 'delta' | 'stopped' = 'idle';
  let next = 0;
  let kind = '';
  events.forEach((event, n) => {
    const e = event as unknown as Record<string, unknown>;
    const at = `event ${n} (${String(e.type)})`;
    switch (e.type) {
      case 'message_start':
        if (state !== 'idle') problems.push(`${at}: message_start inside a message`);
        problems.push(...messageProblems(e.message as Record<string, unknown>, { streaming: true }).map((p) => `${at}: ${p}`));
        if (isObject(e.message) && Array.isArray(e.message.content) && e.message.content.length > 0) problems.push(`${at}: message_start with content`);
        state = 'started';
        next = 0;
        break;
      case 'ping':
        if (state === 'idle') problems.push(`${at}: ping outside a message`);
        break;
      case 'content_block_start':
        if (state !== 'started') problems.push(`${at}: a block starts while another is open or after message_delta`);
        if (e.index !== next) problems.push(`${at}: index ${String(e.index)}, expected ${next}`);
        if (!isObject(e.content_block)) problems.push(`${at}: no content_block`);
        else {
          kind = String(e.content_block.type);
          problems.push(...blockProblems(e.content_block, at));
          if (kind === 'text' && e.content_block.text !== '') problems.push(`${at}: a text block must start empty`);
          if (kind === 'tool_use' && JSON.stringify(e.content_block.input) !== '{}') problems.push(`${at}: tool_use must start with input {}`);
        }
        state = 'block';
        break;
      case 'content_block_delta': {
        if (state !== 'block') problems.push(`${at}: delta outside a block`);
        if (e.index !== next) problems.push(`${at}: delta for block ${String(e.index)} while ${next} is open`);
        const delta = isObject(e.delta) ? e.delta : {};
        if (!(DELTA_FOR[kind] ?? []).includes(String(delta.type))) problems.push(`${at}: ${String(delta.type)} in a ${kind} block`);
        const field = { text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'partial_json', signature_delta: 'signature' }[String(delta.type)];
        if (field !== undefined && typeof delta[field] !== 'string') problems.push(`${at}: ${String(delta.type)}.${field} is not a string`);
        break;
      }
      case 'content_block_stop':
        if (state !== 'block') problems.push(`${at}: stop without an open block`);
        if (e.index !== next) problems.push(`${at}: stop for block ${String(e.index)} while ${next} is open`);
        next++;
        state = 'started';
        break;
      case 'message_delta':
        if (state !== 'started') problems.push(`${at}: message_delta with a block open or twice`);
        if (!isObject(e.delta) || !STOP_REASONS.has(String(e.delta.stop_reason))) problems.push(`${at}: stop_reason`);
        problems.push(...usageProblems(e.usage, at, true));
        state = 'stopped';
        break;
      case 'message_stop':
        if (state !== 'stopped') problems.push(`${at}: message_stop before message_delta`);
        state = 'idle';
        break;
      default:
        problems.push(`${at}: unknown event type`);
    }
  });
  if (state !== 'idle') problems.push(`the last stream did not end with message_stop (state ${state})`);
  return problems;
}
