import t from 'tap';
import { isGatewayError } from '../../src/errors.js';
import type { RawChatRequest } from '../../src/api/chat-types.js';
import { declaredToolsOf, declaredToolsOnce, FINDING_KINDS, FINDING_KIND_LIST, PASSES, PASS_NAMES, repairRequest, summarizeFindings } from '../../src/repair/index.js';
import { assistant, assistantCalls, call, ctx, deepFreeze, kinds, req, tool, user } from './helpers.js';
import { validHistory } from './history.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  t.fail('expected a throw');
  return undefined;
}

t.test('passes: one per name, all named in the docs order', async (t) => {
  t.same(PASS_NAMES, [
    'tool-definitions', 'legacy-functions', 'content-shapes', 'restore-tool-calls', 'restore-reasoning', 'call-ids', 'result-ids',
    'orphan-results', 'pair-results', 'arguments', 'corrupted-content', 'tool-loop',
  ]);
  t.equal(new Set(PASSES.map((p) => p.name)).size, PASSES.length);
  t.equal(FINDING_KIND_LIST.length, Object.keys(FINDING_KINDS).length);
});

t.test('a valid history comes back as the same object with no findings', async (t) => {
  const request = deepFreeze(validHistory(500, 100));
  const out = repairRequest(request, ctx());
  t.equal(out.request, request);
  t.same(out.findings, []);
  t.equal(summarizeFindings(out.findings), undefined);
});

t.test('valid 500-message / 100-call history comes back as the same object (speed: npm run bench)', async (t) => {
  const request = validHistory(500, 100);
  t.equal(request.messages.filter((m) => m.role === 'tool').length, 100);
  const out = repairRequest(request, ctx());
  t.equal(out.request, request, 'the fast path returns the input object');
  t.same(out.findings, []);
});

t.test('passes compose: stripped + misplaced + object args + duplicate ids in one request', async (t) => {
  const request = deepFreeze(
    req([
      user('q'),
      assistantCalls(call('call_0', 'f', { a: 1 })),
      user('interrupt'),
      tool('call_0', 'F'),
      assistantCalls(call('call_0', 'g'), call('call_1', 'h')),
      tool(undefined, 'G'),
      assistant(''),
      tool(undefined, 'lost'),
    ]),
  );
  const out = repairRequest(request, ctx());
  t.same(
    out.request.messages.map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.role)),
    ['user', 'assistant', 'tool:call_0', 'user', 'assistant', 'tool:call_0_2', 'tool:call_1', 'assistant', 'user'],
  );
  t.equal(out.request.messages[1].tool_calls![0].function.arguments, '{"a":1}');
  t.equal(
    summarizeFindings(out.findings),
    'duplicate_call_id=1,missing_tool_call_id=1,orphan_tool_result=1,moved_tool_result=1,missing_tool_result=1,arguments_stringified=1',
  );
  t.ok(
    out.findings.some((f) => f.kind === 'ambiguous_tool_result' && f.advisory),
    'the guess is reported, as advice',
  );
});

t.test('strict mode: nothing changed, one 400 listing every problem', async (t) => {
  const request = req([user('q'), assistantCalls(call('a', 'f', { x: 1 })), user('next'), tool(undefined, 'r')]);
  const error = caught(() => repairRequest(request, ctx({ mode: 'strict' })));
  t.ok(isGatewayError(error));
  t.match(error, { status: 400, code: 'invalid_tool_history', param: 'messages' });
  const message = (error as Error).message;
  t.match(message, /strict mode, nothing was repaired/);
  t.match(message, /1\) .*\[missing_tool_call_id\]/);
  t.match(message, /\[moved_tool_result\]/);
  t.match(message, /\[arguments_stringified\]/);
});

t.test('strict mode: valid and advisory-only requests pass unchanged', async (t) => {
  const request = validHistory(60, 10);
  t.equal(repairRequest(request, ctx({ mode: 'strict' })).request, request);
  const loopy = req([
    user('q'),
    ...[0, 1, 2].flatMap((i) => [assistantCalls(call(`c${i}`, 'f')), tool(`c${i}`, 'same')]),
    assistant('<x.Y object at 0xdeadbeef>'),
  ]);
  const out = repairRequest(loopy, ctx({ mode: 'strict', loopNote: true }));
  t.equal(out.request, loopy, 'no loop note in strict mode');
  t.same(kinds(out.findings), ['corrupted_content', 'tool_loop']);
  t.equal(summarizeFindings(out.findings), undefined);
});

t.test('disabled passes are skipped; the upstream then decides', async (t) => {
  const request = req([user('q'), assistantCalls(call('a', 'f', { x: 1 })), tool('a', 'r')]);
  const out = repairRequest(request, ctx({ disabled: new Set(['arguments']) }));
  t.equal(out.request, request);
  const partial = repairRequest(req([user('q'), tool('zz', 'r'), assistantCalls(call('a', 'f', { x: 1 }))]), ctx({ disabled: new Set(['orphan-results']) }));
  t.equal(partial.request.messages[1].role, 'tool', 'orphan left for the upstream');
  const advisoryOff = repairRequest(req([user('q'), assistantCalls(call('a', 'f'))]), ctx({ disabled: new Set(['tool-loop']) }));
  t.equal(advisoryOff.request.messages.length, 3, 'other passes still run');
});

t.test('unrepairable: a call whose tool name is lost says what is wrong and what was tried', async (t) => {
  const error = caught(() =>
    repairRequest(req([user('q'), { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { arguments: '{}' } }] }]), ctx()),
  );
  t.match(error, { status: 400, code: 'invalid_tool_history', message: /messages\[1\]\.tool_calls\[0\] has no function name.*toolgate looked for function\.name, a top-level name, and the call ledger/ });
});

t.test('summarizeFindings: counts by kind in list order, advisory left out', async (t) => {
  t.equal(
    summarizeFindings([
      { kind: 'missing_tool_result', index: 1, detail: '' },
      { kind: 'tool_definition_converted', index: -1, detail: '' },
      { kind: 'missing_tool_result', index: 2, detail: '' },
      { kind: 'tool_loop', index: 3, detail: '', advisory: true },
    ]),
    'tool_definition_converted=1,missing_tool_result=2',
  );
  t.equal(summarizeFindings([]), undefined);
});

t.test('declaredToolsOnce: declaredToolsOf, computed once per request object', async (t) => {
  const fn = (name: string) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } });
  const request = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [fn('a'), { name: 'b', parameters: { type: 'object' } }] } as unknown as RawChatRequest;
  const once = declaredToolsOnce(request);
  t.same([...once.entries()], [...declaredToolsOf(request).entries()], 'the same tools as declaredToolsOf');
  t.equal(declaredToolsOnce(request), once, 'the same request: the same map, not computed again');
  const changed = { ...request, tools: [fn('c')] } as unknown as RawChatRequest;
  t.same([...declaredToolsOnce(changed).keys()], ['c'], 'a repaired copy is a new object: its own tools');
});
