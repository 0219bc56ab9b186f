import { LRUCache } from 'lru-cache';
import t from 'tap';
import { withCallsCounted } from '../helpers/count-calls.js';
import { ToolSupportMemory } from '../../src/pipeline/tool-support.js';

// Every request with tools asks whether its model is served in prompt mode; almost always no model
// is: the empty memory answers without a cache lookup.
t.test('prompt-mode memory: answers, and no lookup while empty', async (t) => {
  const memory = new ToolSupportMemory({ enabled: true, maxModels: 4, ttlMs: 60_000 });
  withCallsCounted(LRUCache.prototype, 'get', (gets) => {
    t.equal(memory.inPromptMode('up/model-a'), false);
    t.equal(gets(), 0, 'empty: no lookup');
    t.equal(memory.downgrade('up/model-a'), true);
    t.equal(memory.inPromptMode('up/model-a'), true);
    t.equal(memory.inPromptMode('up/model-b'), false);
    t.equal(gets(), 2);
  });
  t.equal(memory.size(), 1);
  const off = new ToolSupportMemory({ enabled: false, maxModels: 4, ttlMs: 60_000 });
  t.equal(off.downgrade('up/model-a'), false);
  t.equal(off.inPromptMode('up/model-a'), false);
});
