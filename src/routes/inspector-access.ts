import type { FastifyRequest } from 'fastify';
import { gatewayKeyOf } from './guard.js';
import type { InspectorConfig } from '../config/schema.js';
import { errors, type GatewayError } from '../errors.js';
import { scopeOf } from '../util/scope.js';

// Who sees which records, as every state is scoped: a gateway key sees the records of its own
// requests, a key named in inspector.adminKeys sees all. With no gateway keys configured, the page
// and API answer loopback clients only, unless inspector.public is set.

/** The scope a caller may read (`all` for an admin or a keyless gateway), or the error to answer. */
export type Viewer = { scope: string | 'all' } | { error: GatewayError };

export function viewerOf(request: FastifyRequest, config: InspectorConfig, keysEnabled: boolean): Viewer {
  if (keysEnabled) {
    // /v1 routes are authenticated by the guards (401 before this runs).
    const key = gatewayKeyOf(request);
    if (!key) return { error: errors.invalidApiKey() };
    return config.adminKeys.includes(key.name) ? { scope: 'all' } : { scope: scopeOf(key.name) };
  }
  if (config.public || isLoopback(request.socket.remoteAddress)) return { scope: 'all' };
  return { error: errors.inspectorForbidden() };
}

/** The page carries no data; without gateway keys it is still served to loopback clients only (unless public). */
export function pageAllowed(request: FastifyRequest, config: InspectorConfig, keysEnabled: boolean): boolean {
  return keysEnabled || config.public || isLoopback(request.socket.remoteAddress);
}

/** The TCP peer (never a forwarded header: those are the client's to write). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
