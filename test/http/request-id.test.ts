import t from 'tap';
import { newRequestId } from '../../src/http/request-id.js';

t.test('request ids: req_ + 32 hex characters, never repeated across pool refills', async (t) => {
  const ids = new Set<string>();
  for (let i = 0; i < 2000; i++) ids.add(newRequestId());
  t.equal(ids.size, 2000, 'every id distinct (the pool refills every 256)');
  t.ok([...ids].every((id) => /^req_[0-9a-f]{32}$/.test(id)), 'every id has the documented shape');
  const digits = new Set([...ids].join('').replaceAll('req_', ''));
  t.equal(digits.size, 16, 'random hex: every digit occurs');
});
