import type { ChatMessage, ChatRequest } from '../../src/api/chat-types.js';

/** A valid history of `turns` tool rounds (`callsPerTurn` parallel calls each) plus chat turns, ~`size` messages. */
export function validHistory(size: number, calls: number): ChatRequest {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a careful assistant with tools.' }];
  let made = 0;
  let n = 0;
  while (messages.length < size) {
    messages.push({ role: 'user', content: `Question ${n}: what is the weather and time in city ${n}?` });
    if (made < calls && messages.length + 4 <= size) {
      const ids = [`call_${n}_w`, `call_${n}_t`];
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: ids[0], type: 'function', function: { name: 'get_weather', arguments: `{"city":"city ${n}"}` } },
          { id: ids[1], type: 'function', function: { name: 'get_time', arguments: `{"tz":"zone ${n}"}` } },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: ids[0], content: `Weather in city ${n}: ${n % 30}C` });
      messages.push({ role: 'tool', tool_call_id: ids[1], content: `Time in zone ${n}: ${n % 24}:00` });
      made += 2;
    }
    messages.push({ role: 'assistant', content: `Answer ${n}: it is ${n % 30}C and ${n % 24}:00 there.` });
    n++;
  }
  return {
    model: 'gpt-4o',
    messages: messages.slice(0, size),
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
    ],
  };
}
