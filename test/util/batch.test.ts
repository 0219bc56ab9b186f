import t from 'tap';
import { mapBatch } from '../../src/util/batch.js';

t.test('mapBatch copies nothing while nothing changes, drops held items, keeps replacements in order', async (t) => {
  const batch = [1, 2, 3, 4];
  t.equal(mapBatch(batch, (n) => n), batch, 'unchanged: the same array');
  t.same(mapBatch(batch, (n) => (n === 2 ? undefined : n)), [1, 3, 4], 'a held item left out');
  t.same(mapBatch(batch, (n) => (n === 3 ? 30 : n)), [1, 2, 30, 4], 'a replaced item in its place');
  t.same(mapBatch(batch, () => undefined), [], 'all held');
  t.same(batch, [1, 2, 3, 4], 'the batch itself untouched');
});
