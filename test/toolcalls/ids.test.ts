import t from 'tap';
import { MISTRAL_TOOL_CALL_ID_PATTERN, ToolCallIdFixer, ensureUniqueToolCallIds, isPlaceholderId, newToolCallId, toUpstreamId } from '../../src/toolcalls/ids.js';

t.test('newToolCallId', async (t) => {
  const ids = new Set(Array.from({ length: 500 }, newToolCallId));
  t.equal(ids.size, 500);
  for (const id of ids) t.match(id, /^call_[A-Za-z0-9]{24}$/);
});

t.test('placeholders', async (t) => {
  for (const id of ['', '0', '1', 'call_0', 'call_12', 'tool_call_3', 'call', undefined]) t.ok(isPlaceholderId(id), String(id));
  for (const id of ['call_abc123', 'a1B2c3D4e', 'toolu_01A09q90qw90lq917835lq9', 'fc_68a1b2c3d4']) t.notOk(isPlaceholderId(id), id);
});

// Issue 45: Kimi K2 (vLLM, SGLang) numbers its calls per answer, the same in every conversation.
t.test('counter-style ids with a tool name are placeholders', async (t) => {
  for (const id of ['functions.get_weather:0', 'functions.get_weather:12', 'get_weather:1', 'functions.mcp__prod__drop_table:3', ' functions.search-docs:0 ']) t.ok(isPlaceholderId(id), id);
  for (const id of ['functions.get_weather', 'get_weather:x', ':0', 'call_abc123:zz', `${'a'.repeat(400)}:0`]) t.notOk(isPlaceholderId(id), id);
  const fixed = ensureUniqueToolCallIds([{ id: 'functions.get_weather:0' }, { id: 'functions.get_time:1' }]);
  t.equal(fixed.replaced, 2);
  for (const call of fixed.calls) t.match(call.id, /^call_[A-Za-z0-9]{24}$/);
  t.match(new ToolCallIdFixer().fix('functions.get_weather:0'), /^call_[A-Za-z0-9]{24}$/, 'streams too');
});

t.test('ensureUniqueToolCallIds', async (t) => {
  const good = [{ id: 'call_aaa' }, { id: 'call_bbb' }];
  t.equal(ensureUniqueToolCallIds(good).calls, good, 'unchanged array returned as is');
  const fixed = ensureUniqueToolCallIds([{ id: 'call_0' }, { id: 'dup_1x' }, { id: 'dup_1x' }, {}]);
  t.equal(fixed.replaced, 3);
  t.equal(fixed.calls[1].id, 'dup_1x', 'first of a repeated id is kept');
  t.equal(new Set(fixed.calls.map((c) => c.id)).size, 4);
  const fixer = new ToolCallIdFixer();
  t.equal(fixer.fix('call_xyz'), 'call_xyz');
  t.not(fixer.fix('call_xyz'), 'call_xyz');
  t.match(fixer.fix(undefined), /^call_/);
});

t.test('toUpstreamId', async (t) => {
  const mapped = toUpstreamId('call_Abc123xyz_long', MISTRAL_TOOL_CALL_ID_PATTERN);
  t.match(mapped, /^[a-zA-Z0-9]{9}$/);
  t.equal(toUpstreamId('call_Abc123xyz_long', MISTRAL_TOOL_CALL_ID_PATTERN), mapped, 'deterministic');
  t.not(toUpstreamId('call_other', MISTRAL_TOOL_CALL_ID_PATTERN), mapped);
  t.equal(toUpstreamId('a1B2c3D4e', MISTRAL_TOOL_CALL_ID_PATTERN), 'a1B2c3D4e', 'valid ids pass');
  t.match(toUpstreamId('x', /^call_[a-z0-9]{16}$/i), /^call_[A-Za-z0-9]{16}$/);
});
