import { readFileSync } from 'node:fs';
import t from 'tap';
import { configSchema } from '../../src/config/schema.js';
import { createMetrics, createPriceLookup } from '../../src/metrics/index.js';
import { FINDING_KINDS } from '../../src/repair/kinds.js';
import { EXAMPLES, runExample } from '../../scripts/repair-catalogue.js';

// The README is the truth: every finding kind, metric and config field is documented there, and
// the repair catalogue's examples still produce the kind they illustrate.

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

t.test('every repair finding kind is in the README catalogue', async (t) => {
  for (const kind of Object.keys(FINDING_KINDS)) t.ok(readme.includes(`\`${kind}\``), kind);
});

t.test('every catalogue example produces its kind and leaves its input untouched', async (t) => {
  for (const kind of Object.keys(EXAMPLES)) {
    const result = runExample(kind);
    t.ok(result.findings.some((f) => f.kind === kind), `${kind} is found`);
    t.ok(result.inputUntouched, `${kind}: the pass did not mutate its input`);
  }
});

t.test('every exported toolgate_ metric is in the metrics reference', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup() });
  t.teardown(() => metrics.close());
  const names = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name).filter((n) => n.startsWith('toolgate_')));
  t.ok(names.size >= 15);
  for (const name of names) t.ok(readme.includes(`\`${name}\``), name);
});

t.test('every config field is in the config reference', async (t) => {
  const fields: string[] = [];
  const walk = (schema: unknown, path: string): void => {
    let node = schema as { def?: { type?: string; innerType?: unknown; shape?: Record<string, unknown>; element?: unknown; valueType?: unknown; in?: unknown } };
    while (node?.def && ['default', 'optional', 'nullable', 'pipe', 'prefault'].includes(node.def.type ?? '')) {
      node = (node.def.innerType ?? node.def.in) as typeof node;
    }
    const def = node?.def;
    // An object documented as one row (e.g. models.<name>.pricing) counts as one field.
    if (def?.type === 'object' && def.shape && path && readme.includes(`| \`${path}\` |`)) fields.push(path);
    else if (def?.type === 'object' && def.shape) {
      for (const [key, child] of Object.entries(def.shape)) walk(child, path ? `${path}.${key}` : key);
    } else if (def?.type === 'record' && def.valueType) {
      const wildcard = path === 'providers' ? 'providers.<name>' : path === 'models' ? 'models.<name>' : path;
      if (wildcard !== path) walk(def.valueType, wildcard);
      else fields.push(path);
    } else if (def?.type === 'array' && (def.element as { def?: { type?: string } })?.def?.type === 'object') {
      walk(def.element, `${path}[]`);
    } else {
      fields.push(path);
    }
  };
  walk(configSchema, '');
  t.ok(fields.length > 30, `${fields.length} fields`);
  for (const field of fields) t.ok(readme.includes(`\`${field}\``), field);
});
