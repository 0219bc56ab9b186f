import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from 'tap';

// `npm start` on a machine with no keys: the built gateway serves simulator/weather, the README's
// curl example works, and SIGTERM drains and exits. Runs dist/ (npm test builds before tap).

const root = new URL('../', import.meta.url).pathname;
const entry = `${root}dist/main.js`;

t.test('npm start with no keys serves the simulator; SIGTERM exits cleanly', async (t) => {
  t.ok(existsSync(entry), 'dist/main.js is built (npm test builds before tap)');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', PORT: '0', HOME: process.env.HOME ?? '/tmp' };
  const child = spawn(process.execPath, [entry], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no startup line: ${output}`)), 15000);
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const startup = output.split('\n').find((l) => l.includes('toolgate listening')) ?? '';
  const parsed = JSON.parse(startup);
  t.same(parsed.providers.map((p: any) => [p.name, p.keySet]), [['openai', false], ['hf', false], ['together', false], ['gemini', false], ['simulator', 'not needed']]);
  t.ok(parsed.models.length > 0, 'startup log lists the models');

  // The README's curl example, as fetch.
  const response = await fetch(`${address}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'simulator/weather',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
    }),
  });
  t.equal(response.status, 200);
  const body: any = await response.json();
  t.equal(body.choices[0].finish_reason, 'tool_calls');
  t.equal(body.choices[0].message.tool_calls[0].function.name, 'get_weather');
  t.same(JSON.parse(body.choices[0].message.tool_calls[0].function.arguments), { city: 'Paris' });

  const keyless = await fetch(`${address}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(keyless.status, 401);
  t.match(((await keyless.json()) as any).error.message, /OPENAI_API_KEY/);

  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  t.equal(await exit, 0, 'exits 0 after SIGTERM');
  t.match(output, /shutting down/);
});

t.test('a bad config fails at startup naming the field', async (t) => {
  const child = spawn(process.execPath, [entry, '--config', `${root}test/fixtures/bad-config.yaml`], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 1);
  t.match(stderr, /providers\.openai\.baseUrl/);
});
