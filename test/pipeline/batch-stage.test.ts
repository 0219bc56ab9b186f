import t from 'tap';
import { staged, type BatchStage } from '../../src/pipeline/batch-stage.js';
import { consume, scriptedSource, sourceScripts } from '../helpers/scripted-source.js';

// staged() replaced the chat path's async generator (normalize and record each batch, close the
// source, a tail batch, then the end-of-stream bookkeeping). Over a family of sources (every length
// 0–3, failing at each place, return() failing or missing), stages (a batch that yields nothing, a
// batch that throws, a tail or none, bookkeeping that fails) and consumers (stopping after each
// number of reads, or reading all), both leave the same log.

/** The generator of src/pipeline/chat.ts before, with its work as the stage's calls. */
async function* reference<T>(source: AsyncIterable<T[]>, stage: BatchStage<T>): AsyncGenerator<T[]> {
  try {
    for await (const batch of source) {
      const out = stage.batch(batch);
      if (out.length > 0) yield out;
    }
  } finally {
    stage.closed();
  }
  const tail = stage.tail();
  if (tail.length > 0) yield tail;
  await stage.finish();
}

interface StageScript {
  /** The batch (by its first item) that hands on nothing. */
  emptyAt?: number;
  /** The batch (by its first item) whose work throws. */
  throwAt?: number;
  tail: boolean;
  finishFails: boolean;
}

function* stageScripts(): Generator<StageScript> {
  for (const at of [undefined, 1, 2]) {
    for (const tail of [false, true]) {
      yield { emptyAt: at, tail, finishFails: false };
      yield { throwAt: at, tail, finishFails: false };
    }
  }
  yield { tail: true, finishFails: true };
  yield { tail: false, finishFails: true };
}

function loggingStage(script: StageScript, log: string[]): BatchStage<number> {
  return {
    batch(batch) {
      log.push(`stage: batch ${JSON.stringify(batch)}`);
      if (batch[0] === script.throwAt) throw new Error('stage failed');
      return batch[0] === script.emptyAt ? [] : batch.map((n) => n * 10);
    },
    closed() {
      log.push('stage: closed');
    },
    tail() {
      log.push('stage: tail');
      return script.tail ? [99] : [];
    },
    async finish() {
      await Promise.resolve();
      log.push('stage: finish');
      if (script.finishFails) throw new Error('finish failed');
    },
  };
}

t.test('the same steps as the generator it replaced, over a family of sources, stages and consumers', async (t) => {
  let cases = 0;
  for (const source of sourceScripts()) {
    const batches = { ...source, items: source.items.map((n) => [n]) };
    for (const stage of stageScripts()) {
      for (const reads of [undefined, 0, 1, 2, 3, 4]) {
        const run = async (layer: (source: AsyncIterable<number[]>, stage: BatchStage<number>) => AsyncIterable<number[]>): Promise<string[]> => {
          const log: string[] = [];
          await consume(layer(scriptedSource(batches, log), loggingStage(stage, log)), reads, log);
          return log;
        };
        const expected = await run(reference);
        const got = await run(staged);
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          t.same(got, expected, `source ${JSON.stringify(source)}, stage ${JSON.stringify(stage)}, reads ${reads}`);
          return;
        }
        cases++;
      }
    }
  }
  t.pass(`${cases} cases alike`);
});
