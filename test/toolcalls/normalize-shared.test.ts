import t from 'tap';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { createReport, fixCallArguments, MAX_UNCHECKED_NOTES, type NormalizeContext } from '../../src/toolcalls/normalize-shared.js';
import type { ToolDefinition } from '../../src/api/chat-types.js';

// The report notes what a schema check left out, once per distinct note and at most
// MAX_UNCHECKED_NOTES of them; a schema checked whole notes nothing.

function contextFor(properties: Record<string, unknown>): NormalizeContext {
  const tool: ToolDefinition = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties } } };
  return { tools: new Map([['f', tool]]), resolveName: (name) => name, repairBudget: new RepairBudget(), textParsing: true };
}

t.test('unchecked schema parts are noted once each, up to the cap', async (t) => {
  const lookaheads = Array.from({ length: MAX_UNCHECKED_NOTES + 3 }, (_, i) => `^(?=.*${i}).*$`);
  const properties = Object.fromEntries(lookaheads.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]));
  const ctx = contextFor(properties);
  const report = createReport();
  const args = JSON.stringify(Object.fromEntries(lookaheads.map((_, i) => [`p${i}`, `x${i}`])));
  for (let call = 0; call < 3; call++) fixCallArguments(args, 'f', ctx, report);
  t.equal(report.unchecked.length, MAX_UNCHECKED_NOTES, 'capped');
  t.equal(new Set(report.unchecked).size, report.unchecked.length, 'distinct');
  t.ok(report.unchecked.every((note) => / is not checked \(lookaround or backreference/.test(note)));
  t.equal(report.invalidArguments, 0, 'the rest of the schema still passes');
});

t.test('a schema checked whole notes nothing', async (t) => {
  const report = createReport();
  fixCallArguments('{"city":"Paris"}', 'f', contextFor({ city: { type: 'string', pattern: '^[A-Z][a-z]+$' } }), report);
  t.same(report.unchecked, []);
});
