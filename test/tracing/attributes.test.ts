import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import t from 'tap';
import { GEN_AI } from '../../src/tracing/attributes.js';

// The GenAI attribute names are copied from the conventions' incubating entry point (not imported
// at run time, as its authors ask): each copy must be that entry point's name.

const expected: Record<keyof typeof GEN_AI, string> = {
  operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
  providerName: incubating.ATTR_GEN_AI_PROVIDER_NAME,
  requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
  responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
  responseId: incubating.ATTR_GEN_AI_RESPONSE_ID,
  finishReasons: incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  inputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  requestMaxTokens: incubating.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  requestTemperature: incubating.ATTR_GEN_AI_REQUEST_TEMPERATURE,
  requestTopP: incubating.ATTR_GEN_AI_REQUEST_TOP_P,
  requestFrequencyPenalty: incubating.ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  requestPresencePenalty: incubating.ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  requestStopSequences: incubating.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  requestSeed: incubating.ATTR_GEN_AI_REQUEST_SEED,
  requestChoiceCount: incubating.ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  requestStream: incubating.ATTR_GEN_AI_REQUEST_STREAM,
  inputMessages: incubating.ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: incubating.ATTR_GEN_AI_OUTPUT_MESSAGES,
};

t.test('every GenAI name is the semantic conventions’ own', async (t) => {
  t.same(GEN_AI, expected);
});

t.test('the well-known values used exist in the conventions', async (t) => {
  t.equal(incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT, 'chat');
  t.equal(incubating.GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT, 'generate_content');
  t.equal(incubating.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI, 'gcp.gemini');
  t.equal(incubating.GEN_AI_PROVIDER_NAME_VALUE_OPENAI, 'openai');
});
