import fc from 'fast-check';
import t from 'tap';
import type { ChatMessage, ChatRequest } from '../../src/api/chat-types.js';
import { isGatewayError } from '../../src/errors.js';
import { repairRequest } from '../../src/repair/index.js';
import { checkChatRequest } from '../emulators/openai-rules.js';
import { ctx, deepFreeze } from './helpers.js';

// Generated valid histories pass unchanged; generated breakages are repaired to something OpenAI's
// rules accept (keeping every text) or rejected with the precise invalid_tool_history 400.

const NAMES = ['get_weather', 'get_time', 'search'];
const word = fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8}){0,3}$/);
const args = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.integer(), word, fc.boolean()), { maxKeys: 3 });
const turn = fc.record({
  user: word,
  calls: fc.array(fc.record({ name: fc.constantFrom(...NAMES), args }), { maxLength: 3 }),
  reversed: fc.boolean(),
  contentStyle: fc.constantFrom('null', 'empty', 'text'),
  answer: fc.option(word, { nil: undefined }),
});

type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

function build(turns: Turn[], system: string | undefined): ChatRequest {
  const messages: ChatMessage[] = system === undefined ? [] : [{ role: 'system', content: `sys ${system}` }];
  turns.forEach((tn, i) => {
    messages.push({ role: 'user', content: `u${i} ${tn.user}` });
    if (tn.calls.length > 0) {
      const calls = tn.calls.map((c, j) => ({ id: `call_${i}_${j}`, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      const content = tn.contentStyle === 'null' ? null : tn.contentStyle === 'empty' ? '' : `a${i} let me check`;
      messages.push({ role: 'assistant', content, tool_calls: calls });
      const results = calls.map((c, j) => ({ role: 'tool' as const, tool_call_id: c.id, content: `r${i}.${j} result` }));
      messages.push(...(tn.reversed ? results.reverse() : results));
    }
    if (tn.answer !== undefined) messages.push({ role: 'assistant', content: `a${i} ${tn.answer}` });
  });
  return { model: 'gpt-4o', messages, tools: NAMES.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })) };
}

const history = fc.tuple(fc.array(turn, { minLength: 1, maxLength: 8 }), fc.option(word, { nil: undefined })).map(([turns, sys]) => build(turns, sys));

type Mutation = (messages: ChatMessage[], pick: number) => void;
const at = (messages: ChatMessage[], pick: number, role: string): ChatMessage | undefined => {
  const all = messages.filter((m) => m.role === role && (role !== 'assistant' || m.tool_calls));
  return all.length === 0 ? undefined : all[pick % all.length];
};
const MUTATIONS: Record<string, Mutation> = {
  dropToolCalls: (ms, p) => {
    const m = at(ms, p, 'assistant');
    if (m) {
      delete m.tool_calls;
      m.content = '';
    }
  },
  dropToolCallId: (ms, p) => {
    const m = at(ms, p, 'tool');
    if (m) delete m.tool_call_id;
  },
  move: (ms, p) => {
    const [m] = ms.splice(p % ms.length, 1);
    ms.splice((p * 7) % (ms.length + 1), 0, m);
  },
  swap: (ms, p) => {
    const i = p % ms.length;
    const j = (p * 13 + 1) % ms.length;
    [ms[i], ms[j]] = [ms[j], ms[i]];
  },
  duplicateIds: (ms) => {
    for (const m of ms) {
      m.tool_calls?.forEach((c) => (c.id = c.id.replace(/^call_\d+_/, 'call_')));
      if (m.tool_call_id) m.tool_call_id = m.tool_call_id.replace(/^call_\d+_/, 'call_');
    }
  },
  objectArgs: (ms, p) => {
    const m = at(ms, p, 'assistant');
    m?.tool_calls?.forEach((c) => {
      try {
        (c.function as Record<string, unknown>).arguments = JSON.parse(c.function.arguments);
      } catch {
        // already an object, or broken by another mutation
      }
    });
  },
  brokenArgs: (ms, p) => {
    const c = at(ms, p, 'assistant')?.tool_calls?.[0];
    if (c && typeof c.function.arguments === 'string') c.function.arguments = c.function.arguments.replace(/"/g, "'").replace(/}$/, ',}');
  },
  nullContent: (ms, p) => {
    const m = at(ms, p, p % 2 ? 'user' : 'tool');
    if (m) m.content = null;
  },
  dropResult: (ms, p) => {
    const tools = ms.filter((m) => m.role === 'tool');
    if (tools.length > 0) ms.splice(ms.indexOf(tools[p % tools.length]), 1);
  },
  stripAll: (ms) => {
    for (const m of ms) {
      for (const key of Object.keys(m)) if (key !== 'role' && key !== 'content') delete m[key];
      if (m.content === null) m.content = '';
    }
  },
  dropName: (ms, p) => {
    const c = at(ms, p, 'assistant')?.tool_calls?.[0];
    if (c) delete (c.function as Record<string, unknown>).name;
  },
  interject: (ms, p) => {
    const m = at(ms, p, 'assistant');
    if (m) ms.splice(ms.indexOf(m) + 1, 0, { role: 'user', content: `interjection ${p}` });
  },
};

function texts(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => (typeof m.content === 'string' && m.content.trim() !== '' ? [m.content.trim()] : []));
}

t.test('valid histories come back unchanged (same object, deep-equal)', async (t) => {
  let calls = 0;
  fc.assert(
    fc.property(history, (request) => {
      if (checkChatRequest(request) !== null) throw new Error(`generator made an invalid history: ${checkChatRequest(request)!.body.error.message}`);
      const copy = structuredClone(request);
      const out = repairRequest(deepFreeze(request), ctx());
      calls += request.messages.filter((m) => m.tool_calls).length;
      t.equal(out.request, request);
      t.same(out.request, copy);
      return out.findings.every((f) => f.advisory === true);
    }),
    { seed: 1337, numRuns: 200 },
  );
  t.ok(calls > 100, `${calls} tool-call messages generated`);
});

t.test('mutated histories: repaired to strict-valid with every text kept, or a precise 400', async (t) => {
  const stats = { repaired: 0, rejected: 0, brokenBefore: 0 };
  const names = Object.keys(MUTATIONS);
  fc.assert(
    fc.property(history, fc.array(fc.tuple(fc.constantFrom(...names), fc.nat(1000)), { minLength: 1, maxLength: 3 }), (request, mutations) => {
      const broken = structuredClone(request);
      for (const [name, pick] of mutations) MUTATIONS[name](broken.messages, pick);
      if (checkChatRequest(broken) !== null) stats.brokenBefore++;
      const input = texts(broken.messages);
      let out;
      try {
        out = repairRequest(deepFreeze(broken), ctx());
      } catch (error) {
        if (!isGatewayError(error) || error.status !== 400 || error.code !== 'invalid_tool_history' || error.message.length < 20) throw error;
        stats.rejected++;
        return true;
      }
      const verdict = checkChatRequest(out.request);
      if (verdict !== null) throw new Error(`${mutations.map((m) => m[0]).join('+')}: still rejected: ${verdict.body.error.message}`);
      const hay = out.request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
      for (const text of input) if (!hay.includes(text)) throw new Error(`${mutations.map((m) => m[0]).join('+')}: lost text ${JSON.stringify(text)}`);
      stats.repaired++;
      return true;
    }),
    { seed: 4242, numRuns: 200 },
  );
  t.comment(JSON.stringify(stats));
  t.ok(stats.brokenBefore > 100, `${stats.brokenBefore} of 200 mutated histories were rejected by OpenAI's rules before repair`);
  t.ok(stats.rejected > 0, 'the unrepairable path (a call that lost its name) is exercised');
  t.equal(stats.repaired + stats.rejected, 200);
});
