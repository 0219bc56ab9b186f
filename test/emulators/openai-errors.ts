// OpenAI-shaped error envelopes for the emulators, with the real API's exact wording.
//
// OpenAI answers request faults in two families, and both are reproduced here:
// - the schema layer (2024+): param without a dot before the bracket (`messages[3].tool_call_id`),
//   a machine `code` (`missing_required_parameter`, `invalid_type`, `invalid_value`, `empty_array`,
//   `unknown_parameter`, `string_above_max_length`, ...), sentences like
//   "Missing required parameter: 'messages[3].tool_call_id'." and
//   "Invalid type for 'n': expected an integer, but got a string instead.";
// - the older semantic validator: param with a dot before the bracket (`messages.[3].role`),
//   `code: null`, sentences like "Invalid parameter: messages with role 'tool' must be a response
//   to a preceeding message with 'tool_calls'." (sic).
// Sources are cited next to each rule in openai-rules*.ts.

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
export interface RuleFailure {
  status: number;
  body: OpenAIErrorBody;
}

export function fail(message: string, param: string | null, code: string | null, status = 400, type = 'invalid_request_error'): RuleFailure {
  return { status, body: { error: { message, type, param, code } } };
}

/** How OpenAI names the JSON type of a value it got ("got an integer instead"). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    case 'number':
      return Number.isInteger(value) ? 'an integer' : 'a decimal number';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** "a 'x', 'y', and 'z'" — OpenAI's enum listing with an Oxford comma ("'a' and 'b'" for two). */
export function quoteList(values: readonly string[], conj = 'and'): string {
  const q = values.map((v) => `'${v}'`);
  if (q.length <= 1) return q.join('');
  if (q.length === 2) return `${q[0]} ${conj} ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, ${conj} ${q[q.length - 1]}`;
}

// ---- schema-layer sentences -------------------------------------------------------------

export const missingParam = (path: string): RuleFailure =>
  fail(`Missing required parameter: '${path}'.`, path, 'missing_required_parameter');

export const invalidType = (path: string, expected: string, got: unknown): RuleFailure =>
  fail(`Invalid type for '${path}': expected ${expected}, but got ${describeValue(got)} instead.`, path, 'invalid_type');

export const invalidValue = (path: string, got: unknown, supported: readonly string[]): RuleFailure =>
  fail(`Invalid value: '${String(got)}'. Supported values are: ${quoteList(supported)}.`, path, 'invalid_value');

export const emptyArray = (path: string): RuleFailure =>
  fail(`Invalid '${path}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, path, 'empty_array');

export const arrayTooLong = (path: string, max: number, got: number): RuleFailure =>
  fail(
    `Invalid '${path}': array too long. Expected an array with maximum length ${max}, but got an array with length ${got} instead.`,
    path,
    'array_above_max_length',
  );

export const emptyString = (path: string): RuleFailure =>
  fail(`Invalid '${path}': empty string. Expected a string with minimum length 1, but got an empty string instead.`, path, 'empty_string');

export const stringTooLong = (path: string, max: number, got: number): RuleFailure =>
  fail(
    `Invalid '${path}': string too long. Expected a string with maximum length ${max}, but got a string with length ${got} instead.`,
    path,
    'string_above_max_length',
  );

export const patternMismatch = (path: string, pattern: string): RuleFailure =>
  fail(`Invalid '${path}': string does not match pattern. Expected a string that matches the pattern '${pattern}'.`, path, 'invalid_value');

export const unknownParameter = (path: string): RuleFailure => fail(`Unknown parameter: '${path}'.`, path, 'unknown_parameter');

/** Out-of-range numbers: "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead." */
export function outOfRange(path: string, value: number, bound: number, side: 'min' | 'max', kind: 'integer' | 'decimal'): RuleFailure {
  const below = side === 'min';
  return fail(
    `Invalid '${path}': ${kind} ${below ? 'below minimum' : 'above maximum'} value. Expected a value ${below ? '>=' : '<='} ${bound}, but got ${value} instead.`,
    path,
    `${kind}_${below ? 'below_min' : 'above_max'}_value`,
  );
}

// ---- older semantic-validator sentences (param with `.[i]`, code null) ---------------------

export const legacy = (message: string, param: string | null): RuleFailure => fail(message, param, null);

// ---- transport-level errors the emulator server answers -----------------------------------

/** The key as OpenAI echoes it: first 8 and last 4 characters, the rest starred (short keys verbatim). */
export function maskApiKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : key;
}

export const incorrectApiKey = (key: string): RuleFailure =>
  fail(
    `Incorrect API key provided: ${maskApiKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    null,
    'invalid_api_key',
    401,
  );

export const missingApiKey = (): RuleFailure =>
  fail(
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    null,
    null,
    401,
  );

export const invalidJsonBody = (): RuleFailure =>
  fail(
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
    null,
    null,
  );

export const invalidUrl = (method: string, path: string): RuleFailure => fail(`Invalid URL (${method} ${path})`, null, null, 404);

export const modelNotFound = (model: string): RuleFailure =>
  fail(`The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found', 404);
