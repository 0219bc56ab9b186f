import t from 'tap';
import type { ChatMessage } from '../../src/api/chat-types.js';
import { allPrefixFingerprints, collapseWhitespace, contentText, ledgerQueryFor, prefixFingerprint } from '../../src/ledger/fingerprint.js';

const full: ChatMessage[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '18C' },
  { role: 'assistant', content: 'It is 18C.' },
];
// What a client that keeps only role + content sends back.
const stripped: ChatMessage[] = full.map((m) => ({ role: m.role, content: m.content ?? '' }));

t.test('tool_calls, ids, names, null vs "" do not change the fingerprint', async (t) => {
  t.same(allPrefixFingerprints(stripped), allPrefixFingerprints(full));
  t.equal(prefixFingerprint(stripped, 3), prefixFingerprint(full, 3));
});

t.test('whitespace, parts vs string, function vs tool, developer vs system are the same', async (t) => {
  const a: ChatMessage[] = [{ role: 'developer', content: ' be  brief\n' }, { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'there' }] }, { role: 'function', name: 'f', content: 'r' }];
  const b: ChatMessage[] = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi there' }, { role: 'tool', tool_call_id: 'x', content: 'r' }];
  t.equal(prefixFingerprint(a, 3), prefixFingerprint(b, 3));
});

t.test('role and text do matter; so does the scope', async (t) => {
  const base = prefixFingerprint(full, 2);
  t.not(prefixFingerprint([{ role: 'user', content: 'You are helpful.' }, full[1]], 2), base);
  t.not(prefixFingerprint([full[0], { role: 'user', content: 'Weather in Rome?' }], 2), base);
  t.not(prefixFingerprint(full, 2, 'tenant-a'), base);
  t.equal(prefixFingerprint(full, 2, 'tenant-a'), allPrefixFingerprints(full, 'tenant-a')[2]);
  // Boundaries are unambiguous: ["ab"] ≠ ["a","b"].
  t.not(prefixFingerprint([{ role: 'user', content: 'ab' }], 1), prefixFingerprint([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], 2));
});

t.test('allPrefixFingerprints[i] = prefixFingerprint(messages, i) for every i', async (t) => {
  const all = allPrefixFingerprints(full);
  t.equal(all.length, full.length + 1);
  for (let i = 0; i <= full.length; i++) t.equal(all[i], prefixFingerprint(full, i));
  t.match(all[0], /^[0-9a-f]{40}$/);
});

t.test('contentText', async (t) => {
  t.equal(contentText(null), '');
  t.equal(contentText([{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'x' } }, 'b']), 'a b');
  t.equal(contentText({ a: 1 }), '{"a":1}');
  t.equal(contentText([1, 2]), '[1,2]');
});

t.test('ledgerQueryFor: every call id + prefixes before assistants that lost their calls', async (t) => {
  const q1 = ledgerQueryFor({ model: 'm', messages: full });
  t.same(q1, { callIds: ['call_1'], prefixFingerprints: [] });
  const q2 = ledgerQueryFor({ model: 'm', messages: stripped });
  t.same(q2.callIds, []);
  t.same(q2.prefixFingerprints, [prefixFingerprint(full, 2)]);
});

t.test('fingerprints of a 500-message history: one per prefix, each prefix distinct (speed: npm run bench)', async (t) => {
  const long: ChatMessage[] = Array.from({ length: 500 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} `.repeat(10) }));
  const all = allPrefixFingerprints(long);
  t.equal(all.length, 501);
  t.equal(new Set(all).size, 501);
  t.equal(all[250], prefixFingerprint(long, 250));
});

t.test('collapseWhitespace is replace(/\\s+/g, " ") for every kind of whitespace run', async (t) => {
  const runs = [' ', '  ', '\t', '\n', '\r\n', ' \t', '\u00a0', '\u2028', '\u3000', '\ufeff', '\v', '\f', ' \u00a0 '];
  const texts = ['', 'plain', 'one space', 'tr ail ', ' lead'];
  for (const run of runs) texts.push(`a${run}b`, `${run}edge${run}`, run, `x ${run}y z`);
  const codes = (text: string): string => [...text].map((c) => c.charCodeAt(0).toString(16)).join(' ');
  for (const text of texts) t.equal(collapseWhitespace(text), text.replace(/\s+/g, ' '), codes(text));
  const unchanged = 'no runs to collapse here';
  t.equal(collapseWhitespace(unchanged), unchanged);
});
