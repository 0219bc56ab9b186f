import t from 'tap';
import { metricSum, metricValue, parseExposition } from './parse-exposition.js';

const text = [
  '# HELP x_total A counter.',
  '# TYPE x_total counter',
  'x_total{a="1",b="q\\"uote\\\\d, {x}"} 3',
  'x_total{a="2",b="line\\nbreak"} 4.5 1700000000000',
  'y 1e3',
  'h_bucket{le="+Inf"} +Inf',
  'n NaN',
  '',
].join('\n');

t.test('parses labels with escapes, timestamps and special values', async (t) => {
  t.equal(parseExposition(text).length, 5);
  t.equal(metricValue(text, 'x_total', { a: '1', b: 'q"uote\\d, {x}' }), 3);
  t.equal(metricValue(text, 'x_total', { a: '2', b: 'line\nbreak' }), 4.5);
  t.equal(metricValue(text, 'x_total', { a: '1' }), undefined, 'labels must match exactly');
  t.equal(metricSum(text, 'x_total'), 7.5);
  t.equal(metricSum(text, 'x_total', { a: '2' }), 4.5);
  t.equal(metricValue(text, 'y'), 1000);
  t.equal(metricValue(text, 'h_bucket', { le: '+Inf' }), Infinity);
  t.ok(Number.isNaN(metricValue(text, 'n')));
  t.equal(metricSum(text, 'missing'), undefined);
});
