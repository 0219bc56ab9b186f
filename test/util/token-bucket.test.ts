import t from 'tap';
import { TokenBucket } from '../../src/util/token-bucket.js';

t.test('a burst of the capacity, then the refill rate, never above the capacity', async (t) => {
  const clock = { now: 0 };
  const bucket = new TokenBucket(100, 2, () => clock.now);
  t.ok(bucket.take(60));
  t.notOk(bucket.take(60), 'not enough left: nothing taken');
  t.equal(bucket.available(), 40);
  clock.now += 10;
  t.equal(bucket.available(), 60, '2 a millisecond');
  clock.now += 1_000;
  t.equal(bucket.available(), 100, 'capped');
  bucket.spend(150);
  t.equal(bucket.available(), 0, 'overspent: never negative');
  clock.now += 25;
  t.equal(bucket.available(), 0, 'the debt is paid back first');
  clock.now += 5;
  t.equal(bucket.available(), 10);
});

t.test('a clock going backwards refills nothing', async (t) => {
  const clock = { now: 1_000 };
  const bucket = new TokenBucket(10, 1, () => clock.now);
  t.ok(bucket.take(10));
  clock.now = 0;
  t.equal(bucket.available(), 0);
  clock.now = 1_005;
  t.equal(bucket.available(), 5);
});
