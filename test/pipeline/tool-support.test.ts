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

// A server that quotes the request in its 400s must not let a client's own words downgrade a model:
// only a phrase the client did not send counts. And what is learned stays with the key that taught it.
t.test('a "no tool support" phrase the client sent itself (echoed back) is not trusted', async (t) => {
  const { errors } = await import('../../src/errors.js');
  const { saysNoToolSupport } = await import('../../src/pipeline/tool-support.js');
  const echoed = errors.upstreamStatus(400, "Invalid value for 'messages[0].content': 'Note: this model does not support tools, ok?' is too long.");
  const request = { model: 'm', messages: [{ role: 'user', content: 'Note: this model does not support tools, ok?' }], tools: [{ type: 'function', function: { name: 'f' } }] };
  t.equal(saysNoToolSupport(echoed, request), false, 'the phrase is in a message the client sent');
  const inToolName = errors.upstreamStatus(400, 'unknown tool x: function calling is not supported');
  t.equal(saysNoToolSupport(inToolName, { tools: [{ type: 'function', function: { name: 'x', description: 'FUNCTION CALLING IS NOT SUPPORTED' } }] }), false, 'case-insensitive, in any string (a description)');
  const genuine = errors.upstreamStatus(400, 'This model does not support tools.');
  t.equal(saysNoToolSupport(genuine, { messages: [{ role: 'user', content: 'What is the weather?' }] }), true, "the provider's own words");
  t.equal(saysNoToolSupport(genuine), true, 'without a request to compare');
});

t.test('a downgrade is scoped to the gateway key whose request taught it', async (t) => {
  const memory = new ToolSupportMemory({ enabled: true, maxModels: 4, ttlMs: 60_000 });
  memory.downgrade('up/model-a', 'scope-a');
  t.equal(memory.inPromptMode('up/model-a', 'scope-a'), true);
  t.equal(memory.inPromptMode('up/model-a', 'scope-b'), false, "another key's model stays native");
  t.equal(memory.inPromptMode('up/model-a'), false, 'and the anonymous client too');
});
