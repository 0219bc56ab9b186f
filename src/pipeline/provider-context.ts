import { errors } from '../errors.js';
import type { Gateway } from './gateway.js';
import { scopeOf } from '../util/scope.js';
import { requiresKey } from '../providers/registry.js';
import type { ProviderCallContext } from '../providers/types.js';
import type { ResolvedModel } from '../routing/router.js';
import type { ChatCallInput } from './request-info.js';

/**
 * Binds a request to the provider it resolved to: records which one in the access log, refuses a
 * keyed provider with no key (naming the env var, without calling upstream) and builds the call
 * context (abort signal, ledger, the allowlisted client headers). Shared by chat and Responses.
 */
export function providerContext(target: ResolvedModel, input: ChatCallInput, gateway: Gateway): ProviderCallContext {
  const settings = target.provider.settings;
  input.info.routed(settings.name, target.upstreamModel);
  if (requiresKey(settings) && !settings.apiKey) {
    throw errors.providerKeyMissing(settings.name, settings.apiKeyEnv ?? `the apiKey of provider '${settings.name}'`);
  }
  const forwardHeaders: Record<string, string> = {};
  for (const name of gateway.forwardHeaderNames) {
    const value = input.headers[name];
    if (typeof value === 'string') forwardHeaders[name] = value;
  }
  return {
    upstreamModel: target.upstreamModel,
    signal: input.signal,
    requestId: input.requestId,
    log: input.log,
    ledger: gateway.ledger.forScope(scopeOf(input.info.keyName)),
    forwardHeaders,
  };
}
