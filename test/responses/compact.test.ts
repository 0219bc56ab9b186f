import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { validateSchema } from '../helpers/openapi.js';
import { startResponsesEmulator } from './emulator-responses.js';
import { decodeCompaction, encodeCompaction, expandCompactions, SUMMARY_HEADER } from '../../src/responses/compaction.js';

// POST /v1/responses/compact: on a bridged upstream the upstream model writes the summary and the
// result has the spec's shape (CompactResource); the compaction item round-trips (a later request
// holding it gives the upstream model the summary); OpenAI compacts itself (relayed).

const CONVERSATION = [
  { type: 'message', role: 'user', content: 'We agreed to launch on Tuesday and notify support first.' },
  { type: 'message', role: 'assistant', content: 'Understood. The launch is Tuesday, with support notified beforehand.' },
];

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

t.test('bridged: the upstream model writes the summary, the spec shape comes back, the item round-trips', async (t) => {
  const upstream = await startOpenAIEmulator({ script: (body) => ({ text: body.messages.some((m) => String(m.content).includes(SUMMARY_HEADER)) ? 'Tuesday.' : 'Launch Tuesday; notify support first.' }) });
  t.teardown(() => upstream.close());
  const gateway = await startGateway({ yaml: configFor({ oc: { baseUrl: upstream.url, apiKey: 'sk-oc-1234' } }) });
  t.teardown(() => gateway.close());

  const compact = await post(gateway.url, '/v1/responses/compact', { model: 'oc/gpt-4o-mini', input: CONVERSATION, prompt_cache_key: 'k' });
  t.equal(compact.status, 200);
  t.same(validateSchema('CompactResource', compact.json), [], 'a CompactResource as the spec has it');
  t.equal(compact.json.object, 'response.compaction');
  const transcript = String(upstream.requests.at(-1)?.body.messages.at(-1).content);
  t.match(transcript, /user: We agreed to launch on Tuesday/, 'the upstream model was given the conversation');
  t.same(compact.json.output.slice(0, -1).map((item: any) => [item.type, item.role, item.content[0].text]), [['message', 'user', CONVERSATION[0].content]], 'user messages kept');
  const item = compact.json.output.at(-1);
  t.equal(item.type, 'compaction');
  t.match(item.id, /^cmp_/);
  t.equal(decodeCompaction(item.encrypted_content), 'Launch Tuesday; notify support first.');

  const next = await post(gateway.url, '/v1/responses', { model: 'oc/gpt-4o-mini', input: [...compact.json.output, { type: 'message', role: 'user', content: 'When is the launch?' }] });
  t.equal(next.status, 200);
  t.equal(next.json.status, 'completed');
  const seen = upstream.requests.at(-1)?.body.messages.map((m: any) => String(m.content)) as string[];
  t.ok(seen.some((content) => content === `${SUMMARY_HEADER}\nLaunch Tuesday; notify support first.`), 'the upstream model reads the summary where the item stood');

  const missing = await post(gateway.url, '/v1/responses/compact', { input: CONVERSATION });
  t.equal(missing.status, 400, 'no model: 400');
  t.equal(missing.json.error.param, 'model');

  const foreign = await post(gateway.url, '/v1/responses', { model: 'oc/gpt-4o-mini', input: [{ type: 'compaction', id: 'cmp_x', encrypted_content: 'gAAAA-opaque' }, { type: 'message', role: 'user', content: 'hi' }] });
  t.equal(foreign.status, 400, 'another provider’s compaction item cannot be read on the bridge');
  t.equal(foreign.json.error.code, 'unreadable_compaction_item');
});

t.test('native OpenAI: relayed to its /responses/compact, its items passed back untouched', async (t) => {
  const upstream = await startResponsesEmulator();
  t.teardown(() => upstream.close());
  const gateway = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-oa-1234' } }) });
  t.teardown(() => gateway.close());
  const compact = await post(gateway.url, '/v1/responses/compact', { model: 'openai/gpt-4o-mini', input: CONVERSATION });
  t.equal(compact.status, 200);
  t.equal(upstream.requests.at(-1)?.path, '/v1/responses/compact');
  t.equal(upstream.requests.at(-1)?.body.model, 'gpt-4o-mini');
  t.same(compact.json.output.at(-1), { id: 'cmp_emu', type: 'compaction', encrypted_content: 'gAAAA-opaque' });
});

t.test('expandCompactions and the envelope (pure)', async (t) => {
  const mine = { type: 'compaction', id: 'cmp_1', encrypted_content: encodeCompaction('the summary') };
  t.same(expandCompactions([mine], false), [{ type: 'message', role: 'user', content: `${SUMMARY_HEADER}\nthe summary` }]);
  const theirs = { type: 'compaction', id: 'cmp_2', encrypted_content: 'gAAAA' };
  t.same(expandCompactions([theirs], true), [theirs], 'OpenAI’s own stay for OpenAI');
  t.equal(decodeCompaction('tgc1.!!!'), undefined, 'not base64 JSON: not ours');
  t.equal(decodeCompaction(`tgc1.${Buffer.from('{"summary":1}').toString('base64url')}`), undefined);
});
