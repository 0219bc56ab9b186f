import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// The page ships in the package: the build copies src/inspector/page to dist/inspector/page, npm
// pack includes it, and the built gateway serves it from there. Needs dist/ (npm test builds it
// before tap); skipped with a note when it is not built.

const ROOT = new URL('../../', import.meta.url).pathname;
const FILES = ['index.html', 'inspector.js', 'inspector.css'];

if (!existsSync(join(ROOT, 'dist/inspector/page/index.html')) || !existsSync(join(ROOT, 'dist/app.js'))) {
  console.log('# inspector package test skipped: dist/ is not built (npm run build)');
  t.pass('skipped: no dist/');
} else {
  t.test('npm pack includes the page', async (t) => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const paths = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((file) => file.path);
    for (const name of FILES) t.ok(paths.includes(`dist/inspector/page/${name}`), name);
  });

  t.test('the built gateway serves the page from dist/', async (t) => {
    const { buildApp } = (await import(pathToFileURL(join(ROOT, 'dist/app.js')).href)) as typeof import('../../src/app.js');
    const { parseConfig } = (await import(pathToFileURL(join(ROOT, 'dist/config/load.js')).href)) as typeof import('../../src/config/load.js');
    const { createLogger } = (await import(pathToFileURL(join(ROOT, 'dist/logging.js')).href)) as typeof import('../../src/logging.js');
    const loaded = parseConfig('providers:\n  simulator: {type: simulator}\ninspector:\n  enabled: true\n', {}, 'test');
    const { app } = await buildApp(loaded, { logger: createLogger({ level: 'silent', secrets: [] }) });
    t.teardown(() => app.close());
    for (const name of FILES) {
      const response = await app.inject({ method: 'GET', url: `/inspector/${name}` });
      t.equal(response.statusCode, 200, name);
    }
    const page = await app.inject({ method: 'GET', url: '/inspector', remoteAddress: '127.0.0.1' });
    t.match(page.headers['content-type'], /text\/html/);
    t.match(page.body, /<script src="\/inspector\/inspector\.js" defer><\/script>/);
    t.match(page.headers['content-security-policy'], /default-src 'none'/);
  });
}
