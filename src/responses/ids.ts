import { randomBytes } from 'node:crypto';

// Ids of what the gateway creates: clients send them back (previous_response_id, item_reference,
// echoed items), so they must be distinct across responses and instances. OpenAI's are a prefix +
// 48 hex characters; ours look the same, so client code that checks the shape keeps working.

export type IdPrefix = 'resp' | 'msg' | 'fc' | 'fco' | 'ctc' | 'rs' | 'item' | 'cmp';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

/** The prefix a stored item without an id gets, by type. */
export function idPrefixFor(type: string | undefined): IdPrefix {
  switch (type) {
    case 'message':
      return 'msg';
    case 'function_call':
      return 'fc';
    case 'function_call_output':
      return 'fco';
    case 'custom_tool_call':
      return 'ctc';
    case 'reasoning':
      return 'rs';
    default:
      return 'item';
  }
}
