import type { RepairOptions } from './types.js';

// The stable list of finding kinds, in header/metrics order. Docs and dashboards key on these
// strings: add new kinds at the end of a group, never rename.
export const FINDING_KINDS = {
  tool_definition_converted: 'a tool was sent in a non-OpenAI shape (AIFunction dict, bare, flat Responses, legacy `functions`) and converted',
  tool_choice_converted: 'legacy `function_call` or a flat Responses tool_choice converted to chat `tool_choice`',
  empty_tools_removed: '`tools: []` removed (with the tool_choice that needed it)',
  legacy_function_call: 'assistant `function_call` / role `function` converted to `tool_calls` / role `tool`',
  content_null: 'null or missing content replaced by "" where a string is required',
  content_stringified: 'content given as an object, array or number turned into a string',
  content_parts_cleaned: 'content parts with stray keys or non-chat part types turned into clean chat parts',
  response_fields_removed: 'response-only fields (refusal, annotations, parsed, parsed_arguments, audio data) not sent upstream',
  tool_call_shape: 'a tool call missing `type` / the `function` wrapper fixed, or an empty `tool_calls` removed',
  restored_tool_calls: "an assistant message's dropped tool_calls restored from the call ledger",
  restored_assistant_message: 'a missing assistant tool-call message re-inserted from the call ledger',
  ledger_mismatch: 'the ledger had calls for this point but they did not fit the results sent (not used; advisory)',
  reasoning_restored: "an assistant tool-call message of the current turn got back the reasoning (`reasoning_content`, thought signatures) its calls came with, from the call ledger, for a target that needs it",
  duplicate_call_id: 'a call id used more than once in the history made unique, in the call and its results',
  missing_call_id: 'a tool call without an id given one',
  missing_tool_call_id: 'a tool result without tool_call_id matched to a call of the preceding assistant',
  ambiguous_tool_result: 'that match was a guess (several candidates, no call by that name, counts differ): advisory',
  orphan_tool_result: 'a tool result with no call anywhere turned into a user message that keeps its content',
  moved_tool_result: 'a tool result moved to directly follow its call',
  missing_tool_result: 'a call that was never answered got a tool message saying no result was returned',
  duplicate_tool_result: 'several results for one call merged into one tool message',
  arguments_stringified: 'tool call arguments given as an object turned into a JSON string',
  arguments_repaired: 'invalid JSON arguments repaired',
  arguments_wrapped: 'arguments that could not be repaired wrapped as {"raw_arguments": "..."}',
  arguments_empty: 'empty or missing arguments replaced by {}',
  corrupted_content: 'text that is an object repr (<… object at 0x…>, [object Object]): dropped, or kept (advisory) per options',
  tool_loop: 'the same tool with identical arguments called loopThreshold+ times (advisory unless loopNote adds a note)',
  // Responses API items (src/responses/repair-items.ts)
  item_type_inferred: 'a Responses input item without `type` typed from its keys: {call_id, output} → function_call_output, {call_id, name, arguments} → function_call, {role, content} → message, {id} → item_reference',
  message_content_fixed: 'Responses message content fixed: `text`/bare strings → input_text or output_text by role, wrong-role part types swapped, null content → ""',
  tool_output_stringified: 'a function_call_output `output` given as an object, number or null turned into a string',
  history_restored: 'an earlier call or output of the current turn the client left out, spliced back from the response store',
  store_unavailable: 'the response store could not be read: lookups the request can do without (history restoration, reasoning items sent by id only) were skipped (advisory)',
  previous_context_truncated: 'a previous_response_id chain longer than 1,000 responses: only the newest 1,000 were sent upstream (advisory)',
  hosted_tool_omitted: 'a Responses tool a chat upstream cannot be given (web_search, file_search, image_generation, code_interpreter, mcp, …) left out of the bridged request (advisory)',
  // Messages API blocks (src/messages/repair/)
  block_type_inferred: 'a Messages content block given as a bare string or without `type` typed from its keys: {tool_use_id} → tool_result, {name, input} → tool_use, {thinking} → thinking, {text} → text, {source} → image',
  empty_text_removed: 'an empty Messages text block removed (a blank one too when its message has other blocks); a message left without blocks removed',
  // Answers: tool-call arguments the tool contract accepted only after a repair that cannot change meaning (src/contract/)
  answer_arguments_repaired: "an answer's tool-call arguments that were not valid JSON (a trailing comma, single quotes, double encoding) handed on repaired",
  answer_arguments_coerced: 'an answer\'s tool-call argument written as a string where the schema wants a number, integer or boolean ("2" → 2, "true" → true) handed on converted',
} as const;

export type FindingKind = keyof typeof FINDING_KINDS;

export const FINDING_KIND_LIST = Object.keys(FINDING_KINDS) as readonly FindingKind[];

export const DEFAULT_REPAIR_OPTIONS: RepairOptions = {
  mode: 'repair',
  disabled: new Set<string>(),
  missingResultText: 'No result was returned for this tool call.',
  corruptedContent: 'keep',
  loopThreshold: 3,
  loopNote: false,
};
