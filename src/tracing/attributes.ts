// Span attribute names. The GenAI ones are "Development" in the semantic conventions and live only in
// the incubating entry point of @opentelemetry/semantic-conventions, which its authors ask
// instrumentations not to import at run time: they are copied here (test/tracing/attributes.test.ts
// checks each against that entry point). toolgate's own facts sit under `toolgate.`.

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestFrequencyPenalty: 'gen_ai.request.frequency_penalty',
  requestPresencePenalty: 'gen_ai.request.presence_penalty',
  requestStopSequences: 'gen_ai.request.stop_sequences',
  requestSeed: 'gen_ai.request.seed',
  requestChoiceCount: 'gen_ai.request.choice.count',
  requestStream: 'gen_ai.request.stream',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
} as const;

export const TOOLGATE = {
  requestId: 'toolgate.request.id',
  /** The configured provider name (gen_ai.provider.name is the semconv's well-known value). */
  provider: 'toolgate.provider',
  /** The model name the client asked for (gen_ai.request.model is the upstream id sent). */
  model: 'toolgate.model',
  stream: 'toolgate.stream',
  attempt: 'toolgate.attempt',
  /** The attempt went to a fallback of the requested model. */
  fallback: 'toolgate.fallback',
  repairCount: 'toolgate.repair.count',
  repairKinds: 'toolgate.repair.kinds',
  repairKind: 'toolgate.repair.kind',
  repairIndex: 'toolgate.repair.message_index',
  repairDetail: 'toolgate.repair.detail',
  /** How the answer's tool calls were obtained: native, text, prompt or none. */
  toolCallSource: 'toolgate.tool_call.source',
  llmCalls: 'toolgate.llm_calls',
  taskId: 'toolgate.task.id',
  keyName: 'toolgate.key.name',
  /** The client went away before the answer was complete. */
  clientAborted: 'toolgate.client_aborted',
  /** The failure row of src/resilience/failures.ts (error.type carries the same value). */
  failure: 'toolgate.failure',
  /** On a CLIENT span: the attempt is the n-th re-ask after a tool-contract violation (docs/contract.md). */
  contractReask: 'toolgate.contract.reask',
  /** On the SERVER span: the kinds of tool-contract violations the request's answers had, and the re-asks sent. */
  contractViolations: 'toolgate.contract.violations',
  contractReasks: 'toolgate.contract.reasks',
} as const;

/** The span event recorded once per repair. */
export const REPAIR_EVENT = 'toolgate.repair';
