import type { RawChatMessage, ToolCall } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { allCallIds, finding, isRecord, MessageList, nonEmptyString, omitKeys, uniqueId } from './util.js';

// Part of pass 6 (content shapes), run first: the deprecated function-calling protocol
// (assistant `function_call`, role `function`) becomes tool_calls / role `tool`, so every later
// pass only deals with one protocol. Generated ids are deterministic (the pass is pure).

export const legacyFunctionsPass: RepairPass = {
  name: 'legacy-functions',
  run(request) {
    const messages = request.messages;
    let needed = false;
    for (const message of messages) {
      if (message.role === 'function' || (message.role === 'assistant' && 'function_call' in message)) {
        needed = true;
        break;
      }
    }
    if (!needed) return { request, findings: [] };

    const list = new MessageList(messages);
    const findings: Finding[] = [];
    const taken = allCallIds(messages);
    // Legacy calls not answered yet, by function name, oldest first.
    const pending = new Map<string, string[]>();

    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      if (message.role === 'assistant' && 'function_call' in message) {
        const legacy: unknown = message.function_call;
        const next = omitKeys(message, ['function_call']);
        if (isRecord(legacy) && nonEmptyString(legacy.name) && !Array.isArray(message.tool_calls)) {
          const id = uniqueId(`call_fn_${i}`, taken);
          const args = legacy.arguments;
          const call: ToolCall = {
            id,
            type: 'function',
            function: { name: legacy.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
          };
          next.tool_calls = [call];
          const queue = pending.get(legacy.name) ?? [];
          queue.push(id);
          pending.set(legacy.name, queue);
          findings.push(finding('legacy_function_call', i, `assistant function_call '${legacy.name}' → tool_calls[0] (id ${id})`));
        } else {
          findings.push(finding('legacy_function_call', i, 'empty or superseded function_call removed'));
        }
        list.set(i, next);
      } else if (message.role === 'function') {
        const name = typeof message.name === 'string' ? message.name : '';
        const id = pending.get(name)?.shift();
        const next: RawChatMessage = { ...message, role: 'tool' };
        if (id !== undefined && !nonEmptyString(message.tool_call_id)) next.tool_call_id = id;
        list.set(i, next);
        const matched = id !== undefined ? ` answering ${id}` : '';
        findings.push(finding('legacy_function_call', i, `role 'function' result${name ? ` of '${name}'` : ''} → role 'tool'${matched}`));
      }
    }
    return { request: list.result(request), findings };
  },
};
