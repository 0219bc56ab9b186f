import t from 'tap';
import type { ChatMessage, ChatRequest } from '../../src/api/chat-types.js';
import { ledgerQueryFor, prefixFingerprint } from '../../src/ledger/fingerprint.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { CallLedger } from '../../src/ledger/types.js';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { DEFAULT_REPAIR_OPTIONS, declaredToolsOf, repairRequest } from '../../src/repair/index.js';
import type { PassResult } from '../../src/repair/types.js';

// The real Hugging Face case: the client serialized only role + content, so on the next turn the
// assistant message has no tool_calls and the tool message no tool_call_id. Every second call
// failed with OpenAI's 400. With the ledger the exact calls and ids come back.

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const turn1: ChatMessage[] = [
  { role: 'system', content: 'You are a weather bot.' },
  { role: 'user', content: 'Weather in Paris and Rome?' },
];
const answer = {
  role: 'assistant' as const,
  content: null,
  tool_calls: [
    { id: 'call_Xa81', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    { id: 'call_Yb22', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
  ],
};

/** What the pipeline does: prefetch from the ledger, then the pure passes. */
async function pipeline(ledger: CallLedger, request: ChatRequest): Promise<PassResult> {
  const snapshot = await ledger.lookup(ledgerQueryFor(request));
  return repairRequest(request, { declaredTools: declaredToolsOf(request), ledger: snapshot, options: DEFAULT_REPAIR_OPTIONS, repairBudget: new RepairBudget() });
}

t.test('stripped history: original calls and ids restored', async (t) => {
  const ledger = new MemoryLedger();
  // Turn 1 went through the gateway: recorded under the client's own messages.
  await ledger.record({ message: answer, prefixFingerprint: prefixFingerprint(turn1, turn1.length), provider: 'openai', model: 'gpt-4o', createdAt: Date.now() });

  const turn2: ChatRequest = {
    model: 'gpt-4o',
    tools: TOOLS as never,
    messages: [
      ...turn1,
      { role: 'assistant', content: '' },
      { role: 'tool', content: 'Paris: 18C, sunny' },
      { role: 'tool', content: 'Rome: 24C, clear' },
    ],
  };
  const out = await pipeline(ledger, turn2);
  t.same(out.request.messages[2], { role: 'assistant', content: '', tool_calls: answer.tool_calls });
  t.same(
    out.request.messages.slice(3).map((m) => [m.tool_call_id, m.content]),
    [
      ['call_Xa81', 'Paris: 18C, sunny'],
      ['call_Yb22', 'Rome: 24C, clear'],
    ],
  );
  t.same(
    out.findings.map((f) => f.kind),
    ['restored_tool_calls', 'missing_tool_call_id', 'missing_tool_call_id'],
  );
});

t.test('the same stripped history without a ledger entry still reaches the model', async (t) => {
  const out = await pipeline(new MemoryLedger(), {
    model: 'gpt-4o',
    messages: [...turn1, { role: 'assistant', content: '' }, { role: 'tool', content: 'Paris: 18C, sunny' }],
  });
  t.same(out.request.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
  t.match(out.request.messages[3].content, /Tool result.*\nParis: 18C, sunny/);
});

t.test('multi-turn: each turn restores from the entry recorded by the previous one', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record({ message: answer, prefixFingerprint: prefixFingerprint(turn1, 2), provider: 'p', model: 'm', createdAt: 0 });
  const turn2Client: ChatMessage[] = [...turn1, { role: 'assistant', content: '' }, { role: 'tool', content: 'P' }, { role: 'tool', content: 'R' }];
  const second = { role: 'assistant' as const, content: 'Also London?', tool_calls: [{ id: 'call_Zc33', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"London"}' } }] };
  await ledger.record({ message: second, prefixFingerprint: prefixFingerprint(turn2Client, turn2Client.length), provider: 'p', model: 'm', createdAt: 0 });
  const turn3: ChatMessage[] = [...turn2Client, { role: 'assistant', content: 'Also London?' }, { role: 'tool', content: 'L' }];
  const out = await pipeline(ledger, { model: 'm', messages: turn3 });
  t.same(out.request.messages[2].tool_calls, answer.tool_calls);
  t.same(out.request.messages[5].tool_calls, second.tool_calls);
  t.same(out.request.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), ['call_Xa81', 'call_Yb22', 'call_Zc33']);
});
