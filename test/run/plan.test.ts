import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { OWN_PROCESS, ROOT, testPlan } from './plan.js';

t.test('the plan holds every test file once, and each file kept in its own process exists', async (t) => {
  const plan = testPlan('');
  const paths = plan.map((file) => file.path);
  t.equal(new Set(paths).size, paths.length, 'no file twice');
  t.ok(paths.includes('test/run/plan.test.ts'), 'this file is in it');
  t.ok(paths.every((path) => path.startsWith('test/') && path.endsWith('.test.ts')));
  for (const path of Object.keys(OWN_PROCESS)) {
    t.ok(existsSync(join(ROOT, path)), `${path} exists`);
    t.ok(plan.find((file) => file.path === path)?.ownProcess, `${path} is planned in its own process`);
  }
  t.equal(testPlan('^test/run/').length, 1, 'TOOLGATE_TEST_FILES narrows the plan');
});
