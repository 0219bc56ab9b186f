/* global process, URL, setTimeout */
// toolgate as `node dist/main.js --config <file> --port <n>` runs it (the Docker image's command),
// in this process, so whatever main does at startup (e.g. starting a tracer from OTEL_* variables)
// happens here too; its RSS and CPU are this process's. Announces {type:'ready', url} over IPC once
// /healthz answers. A config the build rejects (an unknown key before a feature lands) is reported
// as {type:'startup-error', message} before the process exits, so the bench can skip that row.
// Usage (child of bench/run.ts): node bench/serve-child.mjs <config.yaml> <dist|src>

import { get } from 'node:http';
import { freePort } from './child-ready.mjs';

const [configPath, impl = 'dist'] = process.argv.slice(2);
if (!configPath) throw new Error('usage: serve-child.mjs <config.yaml> <dist|src>');

const port = await freePort();

// What main writes before it exits (its startup error) is kept for the report.
let lastError = '';
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  lastError = (lastError + String(chunk)).slice(-600);
  return write(chunk, ...rest);
};
const exit = process.exit.bind(process);
let ready = false;
process.exit = (code) => {
  if (!ready && process.send && process.connected) {
    const message = lastError.replace(/\s+/g, ' ').trim().slice(-300) || `exited with code ${code}`;
    process.send({ type: 'startup-error', message }, () => exit(code));
    return undefined;
  }
  return exit(code);
};

process.argv = [process.argv[0], 'main', '--config', configPath, '--port', String(port), '--host', '127.0.0.1'];
const entry = new URL(impl === 'src' ? '../src/main.ts' : '../dist/main.js', import.meta.url);
await import(entry.href);

const url = `http://127.0.0.1:${port}`;
for (let attempt = 0; attempt < 300 && !ready; attempt++) {
  // node:http, not fetch: loading fetch would add its own MB to the RSS being measured.
  ready = await new Promise((resolve) => {
    get(`${url}/healthz`, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode === 200));
    }).on('error', () => resolve(false));
  });
  if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
}
if (!ready) {
  process.send?.({ type: 'startup-error', message: `no answer on ${url}/healthz within 30 s` });
  exit(1);
}
process.on('message', (message) => {
  // main's own SIGTERM handler drains and exits.
  if (message && typeof message === 'object' && message.type === 'stop') process.kill(process.pid, 'SIGTERM');
});
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
process.send?.({ type: 'ready', url, impl });
