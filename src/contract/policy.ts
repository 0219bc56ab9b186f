import type { ContractConfig, ModelConfig } from '../config/schema.js';

// A model's own `models.<name>.contract` overrides the top-level `contract`, field by field.

export type ContractPolicy = ContractConfig;

export function policyFor(top: ContractConfig, model: Pick<ModelConfig, 'contract'> | undefined): ContractPolicy {
  const own = model?.contract;
  if (!own) return top;
  const merged: ContractPolicy = { ...top };
  if (own.enabled !== undefined) merged.enabled = own.enabled;
  if (own.onViolation !== undefined) merged.onViolation = own.onViolation;
  if (own.maxReasks !== undefined) merged.maxReasks = own.maxReasks;
  if (own.extraCalls !== undefined) merged.extraCalls = own.extraCalls;
  if (own.deadlineMs !== undefined) merged.deadlineMs = own.deadlineMs;
  return merged;
}
