import { UpstreamClient } from '../../src/providers/upstream-http.js';
import type { ProviderSettings } from '../../src/providers/types.js';

/** An UpstreamClient for a test server at `origin` (one connection, 5 s timeouts), `settings` on top. */
export function testUpstreamClient(origin: string, settings: Partial<ProviderSettings> = {}): UpstreamClient {
  return new UpstreamClient({
    name: 'up',
    type: 'openai-compatible',
    baseUrl: `${origin}/v1`,
    timeoutMs: 5_000,
    streamIdleTimeoutMs: 5_000,
    headers: {},
    maxConnections: 1,
    ...settings,
  } as ProviderSettings);
}
