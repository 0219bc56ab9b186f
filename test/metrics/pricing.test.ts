import t from 'tap';
import { costUsd, createPriceLookup, DEFAULT_PRICES_AS_OF, priceFor } from '../../src/metrics/index.js';

t.test('shipped list prices match common model ids', async (t) => {
  t.match(DEFAULT_PRICES_AS_OF, /^\d{4}-\d{2}/);
  const cases: Array<[string, number, number]> = [
    ['gpt-4o', 2.5, 10],
    ['gpt-4o-2024-08-06', 2.5, 10],
    ['gpt-4o-mini', 0.15, 0.6],
    ['gpt-4.1', 2, 8],
    ['gpt-4.1-mini-2025-04-14', 0.4, 1.6],
    ['gpt-4.1-nano', 0.1, 0.4],
    ['o3', 2, 8],
    ['o4-mini', 1.1, 4.4],
    ['gpt-5', 1.25, 10],
    ['gpt-5-mini', 0.25, 2],
    ['gpt-5-nano', 0.05, 0.4],
    ['models/gemini-2.5-flash', 0.3, 2.5],
    ['gemini-2.5-pro', 1.25, 10],
    ['gemini-2.0-flash', 0.1, 0.4],
    ['gemini-3-pro-preview', 2, 12],
    ['gemini-3-flash-preview', 0.5, 3],
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 0.88, 0.88],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo', 0.18, 0.18],
    ['Qwen/Qwen2.5-72B-Instruct-Turbo', 1.2, 1.2],
    ['deepseek-ai/DeepSeek-V3', 1.25, 1.25],
  ];
  for (const [model, input, output] of cases) {
    t.match(priceFor('any', model), { inputPerMTok: input, outputPerMTok: output }, model);
  }
  t.equal(priceFor('any', 'my-private-finetune'), undefined);
});

t.test('config overrides: the model price, then provider/model, model, provider/*', async (t) => {
  const own = { inputPerMTok: 9, outputPerMTok: 9 };
  t.equal(priceFor('openai', 'gpt-4o', own), own);
  const lookup = createPriceLookup({
    'openai/gpt-4o': { inputPerMTok: 1, outputPerMTok: 1 },
    'gpt-4o': { inputPerMTok: 2, outputPerMTok: 2 },
    'ollama/*': { inputPerMTok: 0, outputPerMTok: 0 },
  });
  t.equal(lookup('openai', 'gpt-4o')?.inputPerMTok, 1);
  t.equal(lookup('azure', 'gpt-4o')?.inputPerMTok, 2);
  t.equal(lookup('ollama', 'llama-3.3-70b')?.inputPerMTok, 0);
  t.equal(lookup('together', 'llama-3.3-70b')?.inputPerMTok, 0.88, 'falls back to the shipped table');
});

t.test('cost: cached prompt tokens at the cached price, never more than the prompt', async (t) => {
  const price = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };
  t.equal(costUsd(price, { prompt: 1_000_000, completion: 1_000_000, cachedPrompt: 500_000 }), 1 + 0.25 + 8);
  t.equal(costUsd(price, { prompt: 100, completion: 0, cachedPrompt: 1_000 }), 0.00005);
  t.equal(costUsd({ inputPerMTok: 2, outputPerMTok: 8 }, { prompt: 1_000_000, completion: 0, cachedPrompt: 1_000_000 }), 2);
});
