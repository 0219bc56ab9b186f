import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { summarizeFindings, summarizeWarnings } from '../repair/index.js';
import { logAdvisory } from '../pipeline/repair-step.js';
import type { Finding } from '../repair/types.js';
import { ANONYMOUS_SCOPE, scopeOf } from '../util/scope.js';
import { bridgeCreate } from './bridge.js';
import { expandCompactions } from './compaction.js';
import { isReasoningById, loadHistoryContext, type HistoryContext } from './context.js';
import { nativeCreate, type BridgeTo } from './native.js';
import { repairItems } from './repair-items.js';
import { restoreHistory, sentMalformedToolItems } from './restore.js';
import type { SocketMemory } from './socket-memory.js';
import { isReasoning, isReference, type Item, type ResponsesRequest } from '../api/responses-types.js';
import type { CreateResult, Prepared } from './prepared.js';

// `POST /v1/responses`, read top to bottom: (validated by the route) → repair items → read conversation state
// (previous_response_id, item references, the calls it answers) → restore the current turn →
// native passthrough (OpenAI) or the chat bridge (everyone else) → store. Every lookup and the
// store happen in the tenant scope of the caller's gateway key.

/**
 * `request` was validated by the route's preValidation (routes/validated-body.ts). `memory`: the
 * socket's own responses in WebSocket mode (read before the store; keeps what store: false leaves out).
 */
export async function createResponse(request: ResponsesRequest, input: ChatCallInput, gateway: Gateway, memory?: SocketMemory): Promise<CreateResult> {
  input.info.requested(request.model, request.stream === true);
  const target = targetFor(request.model, input, gateway.router);
  const native = target.provider.responses;
  const options = gateway.repairOptions;

  const repaired = repairItems(request.input, options);
  const restore = gateway.loaded.config.repair.restoreHistory && !options.disabled.has('restore-history');
  const scope = scopeOf(input.info.keyName);
  const store = gateway.responseStore.forScope(scope);
  const context = await loadHistoryContext(memory ? memory.over(store) : store, repaired.items, { previousResponseId: request.previous_response_id, restore });
  // An id the gateway never stored may still be OpenAI's own: only the bridge must know it. With
  // gateway keys, an id outside the caller's scope is unknown everywhere: forwarding it would let
  // the upstream (one account for every key) hand over another key's conversation.
  const tenants = scope !== ANONYMOUS_SCOPE;
  if (context.previousUnknown && (!native || tenants)) throw errors.previousResponseNotFound(request.previous_response_id as string);
  // With a chain only the upstream knows, the gateway cannot tell what is missing: leave it alone.
  const restored = restore && !context.previousUnknown
    ? restoreHistory({ items: repaired.items, ...context, convertOrphans: true, chained: request.previous_response_id !== undefined, wholeTurn: sentMalformedToolItems(request.input) })
    : { items: repaired.items, findings: [] };
  // A continued chain is the whole history: an output that answers no call in it is the client's
  // mistake (or a stale chain), refused as OpenAI does rather than guessed at.
  const [unknownOutput] = restored.unknownOutputs ?? [];
  if (unknownOutput !== undefined) throw errors.toolCallNotFound(unknownOutput, request.previous_response_id as string);
  // Compaction items toolgate made become the summary the model reads (compaction.ts).
  restored.items = expandCompactions(restored.items, native !== undefined);

  if (options.mode === 'strict' && restored.findings.some((finding) => finding.advisory !== true)) {
    const list = restored.findings.filter((f) => f.advisory !== true).map((f, i) => `${i + 1}) input[${f.index}]: ${f.detail} [${f.kind}]`);
    throw errors.invalidRequest(`The input misses items of the current turn (strict mode, nothing was restored): ${list.join('; ')}.`, 'input', 'invalid_tool_history');
  }
  const findings: Finding[] = [...repaired.findings, ...context.findings, ...restored.findings];
  input.info.repaired({ target: 'input', findings, before: Array.isArray(request.input) ? request.input : [], after: restored.items });
  if (findings.length > 0) {
    gateway.metrics.repairs(findings);
    input.log.debug({ findings }, 'responses input repaired');
  }
  const warningsHeader = summarizeWarnings(findings);
  if (warningsHeader) logAdvisory(input.log, warningsHeader, findings);
  // What a response stored now keeps as its chain ([] after an id only the upstream knows).
  const chain = request.previous_response_id === undefined ? undefined : context.chain;
  const prepared: Prepared = { request, items: restored.items, previous: context.previous, repairsHeader: summarizeFindings(findings), warningsHeader, scope, chain, memory };
  if (native) {
    prepared.native = true;
    if (tenants) prepared.items = ownReferencesOnly(prepared.items, context);
    if (context.previous.length > 0 && !context.previousNative) {
      // A response another upstream produced: this one never saw it, so its history goes inline,
      // without item ids (OpenAI looks those up) and without other upstreams' reasoning.
      const { previous_response_id: _previous, ...rest } = request;
      prepared.request = rest as typeof request;
      prepared.items = [...context.previous.filter((item) => !isReasoning(item)).map(({ id: _id, ...item }) => item), ...prepared.items];
      prepared.previous = [];
    }
    // A fallback without native /responses is served through the bridge (not for a chain only OpenAI knows).
    const bridgeTo: BridgeTo | undefined = context.previousUnknown
      ? undefined
      : (fallback) => bridgeCreate({ request: { ...request, model: fallback.requested }, items: resolveReferences(restored.items, context), previous: context.previous, repairsHeader: prepared.repairsHeader, warningsHeader, scope, chain, memory }, { ...input, target: fallback }, gateway);
    return nativeCreate(prepared, target, input, gateway, bridgeTo);
  }
  prepared.items = resolveReferences(restored.items, context);
  if (prepared.previous.length === 0 && prepared.items.length === 0) {
    throw errors.invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  }
  return bridgeCreate(prepared, input, gateway);
}

/**
 * For a native upstream with gateway keys: references stay references (the upstream resolves
 * them), but only to items in the caller's scope; another key's item_reference is a 404 as an
 * unknown id is, and a reasoning item sent by an id the caller never got is dropped (as on the bridge).
 */
function ownReferencesOnly(items: readonly Item[], context: Pick<HistoryContext, 'referenced'>): Item[] {
  const out: Item[] = [];
  items.forEach((item, index) => {
    if (isReference(item) && !context.referenced.has(item.id)) throw errors.itemNotFound(item.id, `input[${index}]`);
    if (isReasoningById(item) && !context.referenced.has(item.id)) return;
    out.push(item);
  });
  return out;
}

/** item_reference → the stored item (unknown: 404 as OpenAI); reasoning sent by id → stored copy or dropped. */
export function resolveReferences(items: readonly Item[], context: Pick<HistoryContext, 'referenced'>): Item[] {
  const out: Item[] = [];
  items.forEach((item, index) => {
    if (isReference(item)) {
      const found = context.referenced.get(item.id);
      if (!found) throw errors.itemNotFound(item.id, `input[${index}]`);
      out.push(found);
    } else if (isReasoning(item) && context.referenced.has(item.id)) out.push(context.referenced.get(item.id) as Item);
    else out.push(item);
  });
  return out;
}
