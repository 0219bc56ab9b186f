import t from 'tap';
import { loadHistoryContext } from '../../src/responses/context.js';
import { restoreHistory, sentMalformedToolItems, turnStart, type RestoreInput } from '../../src/responses/restore.js';
import { createMemoryResponseStore } from '../../src/state/response-store.js';
import { itemText, type Item, type ResponseObject } from '../../src/api/responses-types.js';

// Restoration: the current turn only, in the model's order; compaction of older turns left alone;
// a valid history gets back only what makes it valid.

const user = (text: string): Item => ({ type: 'message', role: 'user', content: text });
const call = (n: number): Item => ({ id: `fc_${n}`, type: 'function_call', call_id: `call_${n}`, name: 'read_file', arguments: `{"n":${n}}`, status: 'completed' });
const out = (n: number): Item => ({ type: 'function_call_output', call_id: `call_${n}`, output: `chunk ${n}` });
const say = (text: string): Item => ({ id: `msg_${text.length}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
const brief = (items: Item[]): string[] => items.map((i) => (i.type === 'message' ? `${String(i.role)}:${itemText(i.content)}` : `${i.type === 'function_call' ? 'fc' : 'out'}${String(i.call_id).slice(5)}`));

/** The store's view after three rounds of a read loop in turn "sum": the model saw everything. */
function known(extra: Partial<RestoreInput> = {}): Omit<RestoreInput, 'items'> {
  const conversation = [user('old turn'), say('old answer'), user('sum'), call(1), out(1), say('more'), call(2), out(2), call(3)];
  return {
    previous: [],
    referenced: new Map(),
    callResponses: new Map([
      ['call_1', 'resp_1'],
      ['call_2', 'resp_2'],
      ['call_3', 'resp_3'],
    ]),
    conversations: new Map([['resp_3', conversation]]),
    convertOrphans: true,
    wholeTurn: true, // a client that sent malformed tool items
    ...extra,
  };
}

t.test('turnStart: right after the last user message', async (t) => {
  t.equal(turnStart([user('a'), call(1), user('b'), call(2)]), 3);
  t.equal(turnStart([call(1)]), 0);
});

t.test('the incident: prompt + latest call + output → the whole turn, in order', async (t) => {
  const result = restoreHistory({ items: [user('old turn'), user('sum'), call(3), out(3)], ...known() });
  t.same(brief(result.items), ['user:old turn', 'user:sum', 'fc1', 'out1', 'assistant:more', 'fc2', 'out2', 'fc3', 'out3']);
  t.same(result.findings.map((f) => [f.kind, f.index]), [
    ['history_restored', 2],
    ['history_restored', 3],
    ['history_restored', 4],
    ['history_restored', 5],
    ['history_restored', 6],
  ]);
});

t.test('older turns the client dropped (compaction) stay dropped', async (t) => {
  const result = restoreHistory({ items: [user('sum'), call(3), out(3)], ...known() });
  t.same(brief(result.items), ['user:sum', 'fc1', 'out1', 'assistant:more', 'fc2', 'out2', 'fc3', 'out3'], 'no "old turn" back');
});

t.test('only what is missing comes back, around what the client kept', async (t) => {
  const result = restoreHistory({ items: [user('sum'), call(1), out(1), { role: 'assistant', type: 'message', content: 'more' }, call(3), out(3)], ...known() });
  t.same(brief(result.items), ['user:sum', 'fc1', 'out1', 'assistant:more', 'fc2', 'out2', 'fc3', 'out3'], 'an echoed assistant text without id counts as present');
  t.equal(result.findings.length, 2);
  const complete = [user('sum'), call(1), out(1), say('more'), call(2), out(2), call(3), out(3)];
  const same = restoreHistory({ items: complete, ...known() });
  t.equal(same.items, complete, 'a complete history is returned as is');
  t.same(same.findings, []);
});

t.test('a parallel call the client dropped without an output stays dropped', async (t) => {
  const conversation = [user('sum'), call(1), out(1), call(2), call(3)];
  const result = restoreHistory({
    items: [user('sum'), call(2), out(2)],
    ...known({ callResponses: new Map([['call_2', 'resp_2'], ['call_3', 'resp_2']]), conversations: new Map([['resp_2', conversation]]) }),
  });
  t.same(brief(result.items), ['user:sum', 'fc1', 'out1', 'fc2', 'out2']);
});

t.test('another turn opening (a new user message) is not restored into', async (t) => {
  const result = restoreHistory({ items: [user('something else'), call(3), out(3)], ...known() });
  t.same(brief(result.items), ['user:something else', 'fc3', 'out3']);
  t.same(result.findings.map((f) => f.advisory), [true]);
});

t.test('in a continued chain an output whose call is nowhere is reported, not made a user message', async (t) => {
  const chain = [user('sum'), call(1), out(1)];
  const unknown = restoreHistory({ items: [out(7)], ...known({ previous: chain, chained: true }) });
  t.same(unknown.unknownOutputs, ['call_7'], 'listed for the service to refuse');
  t.same(unknown.items, [out(7)], 'left as sent');
  t.same(unknown.findings, [], 'no guess recorded');
  const fromStore = restoreHistory({ items: [user('sum'), call(1), out(1), say('more'), call(2), out(2), out(3)], ...known({ chained: true }) });
  t.equal(fromStore.unknownOutputs, undefined, 'a call the store holds still comes back');
  t.same(brief(fromStore.items).slice(-2), ['fc3', 'out3']);
  const answered = restoreHistory({ items: [out(1)], ...known({ previous: [user('sum'), call(1)], chained: true }) });
  t.equal(answered.unknownOutputs, undefined, 'an output of a call in the chain is fine');
});

t.test('an output whose call is missing gets its call back, else becomes a user message', async (t) => {
  const result = restoreHistory({ items: [user('sum'), call(1), out(1), say('more'), call(2), out(2), out(3)], ...known() });
  t.same(brief(result.items).slice(-2), ['fc3', 'out3'], 'call restored right before its output');
  const orphan = restoreHistory({ items: [user('q'), out(7)], ...known() });
  t.same(orphan.items[1], { type: 'message', role: 'user', content: '[Tool result (call id call_7); the tool call it answers is not in this conversation]\nchunk 7' });
  t.same(orphan.findings.map((f) => f.kind), ['orphan_tool_result']);
  const kept = restoreHistory({ items: [user('q'), out(7)], ...known({ convertOrphans: false }) });
  t.same(kept.items[1], out(7), 'left for an upstream that may know the call');
  const chain = [user('sum'), call(1), out(1), say('more'), call(2), out(2), call(3)];
  const chained = restoreHistory({ items: [out(3)], ...known({ previous: chain }) });
  t.same(brief(chained.items), ['out3'], 'the call is in the previous_response_id chain: nothing to do');
});

t.test('loadHistoryContext + restore against a real store', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100 });
  const response = (id: string, output: Item[]): ResponseObject => ({ id, object: 'response', output } as unknown as ResponseObject);
  await store.put({ response: response('resp_1', [call(1)]), input: [user('sum')] });
  await store.put({ response: response('resp_2', [call(2)]), input: [user('sum'), call(1), out(1)] });
  const items = [user('sum'), call(2), out(2)];
  const context = await loadHistoryContext(store, items, { restore: true });
  t.same([...context.conversations.keys()], ['resp_2'], 'only the anchor conversation is read');
  const result = restoreHistory({ items, ...context, convertOrphans: true, wholeTurn: true });
  t.same(brief(result.items), ['user:sum', 'fc1', 'out1', 'fc2', 'out2']);

  const off = await loadHistoryContext(store, items, { restore: false });
  t.equal(off.callResponses.size, 0, 'restoreHistory off: no call lookups');
  const unknown = await loadHistoryContext(store, items, { restore: true, previousResponseId: 'resp_nope' });
  t.equal(unknown.previousUnknown, true);
  const chained = await loadHistoryContext(store, [out(2)], { restore: true, previousResponseId: 'resp_2' });
  t.same(brief(chained.previous), ['user:sum', 'fc1', 'out1', 'fc2']);
});

t.test('a valid history: what the client left out of its own turn stays out; only what makes it valid comes back', async (t) => {
  const valid = { ...known(), wholeTurn: false };
  const trimmed = [user('sum'), call(1), out(1), call(3), out(3)]; // call 2 and its output dropped on purpose
  const kept = restoreHistory({ items: trimmed, ...valid });
  t.equal(kept.items, trimmed, 'nothing spliced back');
  t.same(kept.findings, []);
  const latestOnly = restoreHistory({ items: [user('old turn'), user('sum'), call(3), out(3)], ...valid });
  t.same(brief(latestOnly.items), ['user:old turn', 'user:sum', 'fc3', 'out3'], 'only the latest call, well-formed: left alone');
  // A call sent without its output is invalid: its output comes back when the store has it.
  const unanswered = restoreHistory({ items: [user('sum'), call(1), call(3), out(3)], ...valid });
  t.same(brief(unanswered.items), ['user:sum', 'fc1', 'out1', 'fc3', 'out3']);
  t.same(unanswered.findings.map((f) => [f.kind, f.index]), [['history_restored', 2]]);
  // An output without its call is invalid: the call comes back.
  const orphan = restoreHistory({ items: [user('sum'), out(3)], ...valid });
  t.same(brief(orphan.items), ['user:sum', 'fc3', 'out3']);
});

t.test('sentMalformedToolItems: tool items OpenAI would refuse, read before item repair', async (t) => {
  t.equal(sentMalformedToolItems([{ role: 'user', content: 'hi' }, { type: 'function_call_output', call_id: 'c', output: '1' }]), false, 'typed items, untyped messages: valid');
  t.equal(sentMalformedToolItems([{ call_id: 'c', output: '1' }]), true, 'an output without type');
  t.equal(sentMalformedToolItems([{ call_id: 'c', name: 'f', arguments: '{}' }]), true, 'a call without type');
  t.equal(sentMalformedToolItems([{ role: 'tool', tool_call_id: 'c', content: '1' }]), true, 'a chat tool message');
  t.equal(sentMalformedToolItems([{ role: 'assistant', content: '', tool_calls: [] }]), true, 'chat tool_calls');
  t.equal(sentMalformedToolItems('just text'), false);
});
