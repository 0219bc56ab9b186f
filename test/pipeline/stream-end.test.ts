import t from 'tap';
import { withEndHooks, type EndHooks } from '../../src/pipeline/stream-end.js';
import { consume, scriptedSource, sourceScripts } from '../helpers/scripted-source.js';

// withEndHooks replaced an async generator (settledOnEnd's try / yield* / catch / finally). Over a
// family of sources (every length 0–3, failing at each place, return() failing or missing) and
// consumers (stopping after each number of reads, or reading all), both leave the same log: what
// the source was asked, what the consumer got, which hook ran and when.

/** The generator settledOnEnd was, with its settle calls as hooks. */
async function* reference<T>(items: AsyncIterable<T>, hooks: EndHooks): AsyncGenerator<T> {
  let settled = false;
  try {
    yield* items;
    settled = true;
    hooks.completed();
  } catch (error) {
    settled = true;
    throw hooks.failed(error);
  } finally {
    if (!settled) hooks.stopped();
  }
}

function loggingHooks(log: string[], completedFails: boolean): EndHooks {
  return {
    completed() {
      log.push('hook: completed');
      if (completedFails) throw new Error('completed failed');
    },
    failed(error) {
      log.push(`hook: failed (${(error as Error).message})`);
      return new Error(`scrubbed ${(error as Error).message}`);
    },
    stopped() {
      log.push('hook: stopped');
    },
  };
}

t.test('the same steps as the generator it replaced, over a family of sources and consumers', async (t) => {
  let cases = 0;
  for (const script of sourceScripts()) {
    for (const reads of [undefined, 0, 1, 2, 3]) {
      for (const completedFails of [false, true]) {
        const run = async (layer: (items: AsyncIterable<number>, hooks: EndHooks) => AsyncIterable<number>): Promise<string[]> => {
          const log: string[] = [];
          await consume(layer(scriptedSource(script, log), loggingHooks(log, completedFails)), reads, log);
          return log;
        };
        const expected = await run(reference);
        const got = await run(withEndHooks);
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          t.same(got, expected, `script ${JSON.stringify(script)}, reads ${reads}, completedFails ${completedFails}`);
          return;
        }
        cases++;
      }
    }
  }
  t.pass(`${cases} cases alike`);
});

t.test('a layer that never started calls no hook and leaves the source alone', async (t) => {
  const log: string[] = [];
  const layer = withEndHooks(scriptedSource({ items: [1] }, log), loggingHooks(log, false));
  t.same(await layer.return?.(), { done: true, value: undefined });
  t.same(log, []);
});
