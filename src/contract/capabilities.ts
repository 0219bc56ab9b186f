import { LRUCache } from 'lru-cache';
import type { ChatRequest } from '../api/chat-types.js';
import { GatewayError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { saysItself, upstream400Message } from '../request-echo.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../util/scope.js';

// What an upstream honours of the contract's request fields, per provider and model
// (docs/contract.md "Asking first"). toolgate first asks for what the request wants in the
// provider's own words: Gemini's functionCallingConfig (ANY, NONE, allowedFunctionNames), the
// OpenAI-compatible `tool_choice` and `parallel_tool_calls` as sent, prompt mode's rendered
// rules. An upstream that rejects one of these fields with a 400 naming it is learned like a
// prompt-mode downgrade: the call is sent once more without that field, and the model gets it
// left out for a while (bounded, expiring, per instance, for the gateway key whose request taught
// it; words the client itself sent do not count: request-echo.ts). The contract still checks the answer:
// what the upstream was not told is enforced by the check and the re-ask.

/** A request field (a tool_choice value by kind) an upstream can reject. */
export type ContractField = 'parallel_tool_calls' | 'tool_choice:required' | 'tool_choice:none' | 'tool_choice:function' | 'tool_choice:allowed_tools';

// Rejection words of OpenAI ("Unsupported parameter: 'parallel_tool_calls' is not supported with
// this model."), vLLM ("tool_choice \"required\" is not supported"), pydantic servers ("Extra
// inputs are not permitted"), others ("unknown/unrecognized parameter"). Checked apart from the
// field's name: two linear scans, no pattern spanning both.
const REJECTS = /\b(?:not supported|unsupported|not allowed|not permitted|unrecognized|unknown (?:parameter|field|argument)|extra_forbidden|only (?:supports?|accepts?))\b/i;

/** The contract field an upstream 400 rejects in `request`, if that is what it says. */
export function rejectedContractField(error: unknown, request: ChatRequest): ContractField | undefined {
  const message = upstream400Message(error);
  if (message === undefined || !(error instanceof GatewayError)) return undefined;
  const names = (field: string): boolean => error.param === field || message.includes(field);
  if (!saysItself(message, [REJECTS], request) && error.code !== 'unsupported_parameter' && error.code !== 'unsupported_value') return undefined;
  if (request.parallel_tool_calls !== undefined && names('parallel_tool_calls')) return 'parallel_tool_calls';
  if (request.tool_choice !== undefined && names('tool_choice')) return toolChoiceField(request.tool_choice);
  return undefined;
}

function toolChoiceField(choice: unknown): ContractField | undefined {
  if (choice === 'required') return 'tool_choice:required';
  if (choice === 'none') return 'tool_choice:none';
  if (isRecord(choice) && choice.type === 'function') return 'tool_choice:function';
  if (isRecord(choice) && choice.type === 'allowed_tools') return 'tool_choice:allowed_tools';
  return undefined;
}

/** `request` without `field` (the contract checks the answer for it instead). */
export function withoutField(request: ChatRequest, field: ContractField): ChatRequest {
  if (field === 'parallel_tool_calls') {
    if (request.parallel_tool_calls === undefined) return request;
    const { parallel_tool_calls: _dropped, ...rest } = request;
    return rest as ChatRequest;
  }
  if (request.tool_choice === undefined || toolChoiceField(request.tool_choice) !== field) return request;
  const { tool_choice: _dropped, ...rest } = request;
  return rest as ChatRequest;
}

export interface CapabilitySettings {
  maxModels: number;
  ttlMs: number;
}

/** The fields each model (`provider/upstream model`) was seen to reject. */
export class ContractCapabilities {
  private readonly rejected: LRUCache<string, Set<ContractField>>;

  constructor(readonly settings: CapabilitySettings) {
    this.rejected = new LRUCache({ max: settings.maxModels, ttl: settings.ttlMs });
  }

  /** The request as this model takes it: the fields it rejected for the gateway key of `scope` left out. */
  relaxed(modelKey: string, request: ChatRequest, scope: string = ANONYMOUS_SCOPE): ChatRequest {
    // Almost always empty: no lookup per request then.
    if (this.rejected.size === 0) return request;
    const fields = this.rejected.get(scopedKey(scope, modelKey));
    if (!fields) return request;
    let out = request;
    for (const field of fields) out = withoutField(out, field);
    return out;
  }

  learn(modelKey: string, field: ContractField, scope: string = ANONYMOUS_SCOPE): void {
    const key = scopedKey(scope, modelKey);
    const fields = this.rejected.get(key) ?? new Set<ContractField>();
    fields.add(field);
    this.rejected.set(key, fields);
  }
}
