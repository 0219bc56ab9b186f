import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/load.js';
import { createLogger } from '../src/logging.js';
const loaded = parseConfig(`providers:\n  simulator: {type: simulator}\n`, {}, 'fuzz');
const { app } = await buildApp(loaded, { logger: createLogger({ level: 'silent', secrets: [] }) });
for (const body of process.argv.slice(2)) {
  const res = await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: body, headers: { 'content-type': 'application/json' } });
  console.log(res.statusCode, res.body.slice(0, 400));
}
await app.close();
