import Fastify from 'fastify';
import t from 'tap';
import { keepJournal, requestInfoOf } from '../../src/routes/request-context.js';

async function journalOf(setting: boolean | undefined): Promise<{ root: boolean; plugin: boolean }> {
  const app = Fastify();
  if (setting !== undefined) keepJournal(app, setting);
  const seen: Record<string, boolean> = {};
  app.get('/root', async (request) => {
    seen.root = requestInfoOf(request, 'chat_completions').journal;
    return {};
  });
  await app.register(async (child) => {
    child.get('/plugin', async (request) => {
      seen.plugin = requestInfoOf(request, 'chat_completions').journal;
      return {};
    });
  });
  await app.inject({ url: '/root' });
  await app.inject({ url: '/plugin' });
  await app.close();
  return { root: seen.root, plugin: seen.plugin };
}

t.test('RequestInfo keeps the inspector journal only where the app asked for it', async (t) => {
  t.same(await journalOf(false), { root: false, plugin: false }, 'inspector off: no journal, in plugins too');
  t.same(await journalOf(true), { root: true, plugin: true }, 'inspector on');
  t.same(await journalOf(undefined), { root: true, plugin: true }, 'not said: kept (as before)');
});
