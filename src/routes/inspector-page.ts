import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { pageAllowed } from './inspector-access.js';
import type { Inspector } from '../inspector/index.js';

// The inspector page: three static files in src/inspector/page, copied to dist/inspector/page by the
// build (so the same relative path works from src/ and from the package), read once at startup; no
// CDN, works offline. Its data comes only from the JSON API.

const FOLDER = fileURLToPath(new URL('../inspector/page/', import.meta.url));
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'inspector.js': 'text/javascript; charset=utf-8',
  'inspector.css': 'text/css; charset=utf-8',
};
// Everything from this origin only; the page runs no inline script or style.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function registerInspectorPage(app: FastifyInstance, gateway: Gateway, inspector: Inspector): void {
  const files = new Map(Object.entries(FILES).map(([name, type]) => [name, { type, body: readFileSync(`${FOLDER}${name}`) }]));
  const keysEnabled = gateway.auth.keys.enabled;
  const serve = (name: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!pageAllowed(request, inspector.config, keysEnabled)) throw errors.inspectorForbidden();
    const file = files.get(name);
    if (!file) throw errors.routeNotFound(request.method, request.url.split('?')[0]);
    return reply
      .headers({ 'content-type': file.type, 'cache-control': 'no-cache', 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' })
      .send(file.body);
  };
  app.get('/inspector', serve('index.html'));
  app.get('/inspector/', serve('index.html'));
  for (const name of Object.keys(FILES)) app.get(`/inspector/${name}`, serve(name));
}
