// Request validation for the Gemini emulator, with the real API's messages (collected from
// public reports of generativelanguage v1beta errors). Two layers, like the real service:
// JSON→proto parsing (unknown fields, wrong shapes: all violations joined by "\n") and
// semantic checks ("* GenerateContentRequest.<path>: <problem>\n" lines), then turn rules.

export interface GeminiErrorReply {
  status: number;
  body: { error: { code: number; message: string; status: string; details?: unknown[] } };
}

type Json = Record<string, any>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const fields = (...names: string[]) => new Set(names);

const REQUEST_FIELDS = fields('model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'generationConfig', 'cachedContent');
const CONTENT_FIELDS = fields('role', 'parts');
const PART_FIELDS = fields('text', 'inlineData', 'functionCall', 'functionResponse', 'fileData', 'executableCode', 'codeExecutionResult', 'videoMetadata', 'thought', 'thoughtSignature', 'partMetadata');
const TOOL_FIELDS = fields('functionDeclarations', 'googleSearchRetrieval', 'codeExecution', 'googleSearch', 'computerUse', 'urlContext', 'fileSearch', 'googleMaps');
const DECLARATION_FIELDS = fields('name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior');
export const SCHEMA_FIELDS = fields(
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'maxItems', 'minItems', 'properties', 'required', 'minProperties',
  'maxProperties', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default',
);
const TYPES = fields('TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL');
const GENERATION_FIELDS = fields(
  'candidateCount', 'stopSequences', 'maxOutputTokens', 'temperature', 'topP', 'topK', 'seed', 'responseMimeType', 'responseSchema',
  'responseJsonSchema', '_responseJsonSchema', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs',
  'enableEnhancedCivicAnswers', 'responseModalities', 'speechConfig', 'thinkingConfig', 'imageConfig', 'mediaResolution',
);
const THINKING_FIELDS = fields('includeThoughts', 'thinkingBudget', 'thinkingLevel');
const NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export const MESSAGES = {
  invalidName:
    'Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.',
  callTurn: 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
  responseTurn: 'Please ensure that function response turn comes immediately after a function call turn.',
  responseCount: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
  missingSignature: (name: string, position: number) =>
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
};

export function invalidArgument(message: string, violations?: Array<{ field: string; description: string }>): GeminiErrorReply {
  const details = violations ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }] : undefined;
  return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT', ...(details ? { details } : {}) } } };
}

/** Returns the error the real API would give, or null when the request is acceptable. */
export function validateRequest(body: unknown, model: string): GeminiErrorReply | null {
  if (!isObject(body)) return invalidArgument('Invalid JSON payload received. Expected an object.');
  const parse: Array<{ field: string; description: string }> = [];
  const unknown = (key: string, at: string, allowed: Set<string>) => {
    if (allowed.has(camel(key))) return false;
    const description = at ? `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.` : `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`;
    parse.push({ field: at, description });
    return true;
  };
  Object.keys(body).forEach((k) => unknown(k, '', REQUEST_FIELDS));
  const contents: unknown[] = Array.isArray(body.contents) ? body.contents : [];
  contents.forEach((content, i) => {
    if (!isObject(content)) return;
    Object.keys(content).forEach((k) => unknown(k, `contents[${i}]`, CONTENT_FIELDS));
    (Array.isArray(content.parts) ? content.parts : []).forEach((part: unknown, j: number) => {
      if (!isObject(part)) return;
      Object.keys(part).forEach((k) => unknown(k, `contents[${i}].parts[${j}]`, PART_FIELDS));
      const signature = part.thoughtSignature ?? part.thought_signature;
      if (typeof signature === 'string' && !BASE64.test(signature)) {
        const field = `contents[${i}].parts[${j}].thought_signature`;
        parse.push({ field, description: `Invalid value at '${field}' (TYPE_BYTES), Base64 decoding failed for "${signature}"` });
      }
    });
  });
  const declarations: Array<{ decl: Json; at: string; semantic: string }> = [];
  (Array.isArray(body.tools) ? body.tools : []).forEach((tool: unknown, i: number) => {
    if (!isObject(tool)) return;
    Object.keys(tool).forEach((k) => unknown(k, `tools[${i}]`, TOOL_FIELDS));
    const list = tool.functionDeclarations ?? tool.function_declarations;
    (Array.isArray(list) ? list : []).forEach((decl: unknown, j: number) => {
      if (!isObject(decl)) return;
      const at = `tools[${i}].function_declarations[${j}]`;
      Object.keys(decl).forEach((k) => unknown(k, at, DECLARATION_FIELDS));
      if (isObject(decl.parameters)) parseSchema(decl.parameters, `${at}.parameters`, parse, unknown);
      declarations.push({ decl, at, semantic: `GenerateContentRequest.${at}` });
    });
  });
  const generation = body.generationConfig ?? body.generation_config;
  if (isObject(generation)) {
    Object.keys(generation).forEach((k) => unknown(k, 'generation_config', GENERATION_FIELDS));
    const thinking = generation.thinkingConfig ?? generation.thinking_config;
    if (isObject(thinking)) Object.keys(thinking).forEach((k) => unknown(k, 'generation_config.thinking_config', THINKING_FIELDS));
  }
  if (parse.length > 0) return invalidArgument(parse.map((v) => v.description).join('\n'), parse);

  const semantic: string[] = [];
  if (contents.length === 0) semantic.push('GenerateContentRequest.contents: contents is not specified');
  contents.forEach((content, i) => {
    if (isObject(content) && (!Array.isArray(content.parts) || content.parts.length === 0)) {
      semantic.push(`GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    }
  });
  for (const { decl, semantic: path } of declarations) {
    if (typeof decl.name !== 'string' || !NAME.test(decl.name)) semantic.push(`${path}.name: ${MESSAGES.invalidName}`);
    if (isObject(decl.parameters)) checkSchema(decl.parameters, `${path}.parameters`, semantic);
  }
  if (semantic.length > 0) return invalidArgument(semantic.map((line) => `* ${line}\n`).join(''));
  for (const content of contents) {
    const role = isObject(content) ? content.role : undefined;
    if (role !== undefined && role !== 'user' && role !== 'model') return invalidArgument('Please use a valid role: user, model.');
  }
  return checkTurns(contents as Json[], model);
}

type Unknown = (key: string, at: string, allowed: Set<string>) => boolean;

/** The JSON→proto layer: fields the Schema message lacks, lists where one value goes, bad enums. */
function parseSchema(schema: Json, at: string, parse: Array<{ field: string; description: string }>, unknown: Unknown): void {
  for (const [key, value] of Object.entries(schema)) {
    if (unknown(key, at, SCHEMA_FIELDS)) continue;
    if (key === 'type' && Array.isArray(value)) {
      parse.push({ field: at, description: `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.` });
    } else if (key === 'type' && (typeof value !== 'string' || !TYPES.has(value.toUpperCase()))) {
      const field = `${at}.type`;
      parse.push({ field, description: `Invalid value at '${field}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(value)}` });
    } else if (key === 'enum' && Array.isArray(value)) {
      value.forEach((v, n) => {
        if (typeof v !== 'string') parse.push({ field: `${at}.enum[${n}]`, description: `Invalid value at '${at}.enum[${n}]' (TYPE_STRING), ${JSON.stringify(v)}` });
      });
    }
  }
  if (isObject(schema.properties)) {
    Object.values(schema.properties).forEach((sub, n) => {
      if (isObject(sub)) parseSchema(sub, `${at}.properties[${n}].value`, parse, unknown);
    });
  }
  if (isObject(schema.items)) parseSchema(schema.items, `${at}.items`, parse, unknown);
  const anyOf = schema.anyOf ?? schema.any_of;
  if (Array.isArray(anyOf)) anyOf.forEach((sub: unknown, n: number) => isObject(sub) && parseSchema(sub, `${at}.any_of[${n}]`, parse, unknown));
}

/** The semantic layer: a type on every node, items on arrays, properties only on objects. */
function checkSchema(schema: Json, path: string, out: string[]): void {
  const type = typeof schema.type === 'string' ? schema.type.toUpperCase() : undefined;
  const anyOf = schema.anyOf ?? schema.any_of;
  if (!type && !Array.isArray(anyOf)) out.push(`${path}.type: must be specified when not using one_of, any_of or all_of fields`);
  if (type === 'ARRAY' && !isObject(schema.items)) out.push(`${path}.items: missing field.`);
  if (schema.properties !== undefined && type && type !== 'OBJECT') out.push(`${path}.properties: only allowed for OBJECT type`);
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) if (isObject(sub)) checkSchema(sub, `${path}.properties[${name}]`, out);
  }
  if (Array.isArray(schema.required)) {
    schema.required.forEach((name: unknown, n: number) => {
      if (!isObject(schema.properties) || typeof name !== 'string' || !(name in schema.properties)) out.push(`${path}.required[${n}]: property is not defined`);
    });
  }
  if (isObject(schema.items)) checkSchema(schema.items, `${path}.items`, out);
  if (Array.isArray(anyOf)) anyOf.forEach((sub: unknown, n: number) => isObject(sub) && checkSchema(sub, `${path}.any_of[${n}]`, out));
}

const callsOf = (content: Json | undefined): Json[] => (Array.isArray(content?.parts) ? content.parts.filter((p: Json) => isObject(p) && (p.functionCall ?? p.function_call)) : []);
const responsesOf = (content: Json | undefined): Json[] => (Array.isArray(content?.parts) ? content.parts.filter((p: Json) => isObject(p) && (p.functionResponse ?? p.function_response)) : []);

/** Turn pairing for every model; thought signatures for Gemini 3 models. */
function checkTurns(contents: Json[], model: string): GeminiErrorReply | null {
  for (let i = 0; i < contents.length; i++) {
    const calls = callsOf(contents[i]);
    const responses = responsesOf(contents[i]);
    if (calls.length > 0 && (i === 0 || contents[i - 1].role === 'model')) return invalidArgument(MESSAGES.callTurn);
    if (responses.length > 0) {
      const previousCalls = i > 0 && contents[i - 1].role === 'model' ? callsOf(contents[i - 1]) : [];
      if (previousCalls.length === 0) return invalidArgument(MESSAGES.responseTurn);
    }
    if (calls.length > 0 && i + 1 < contents.length && responsesOf(contents[i + 1]).length !== calls.length) return invalidArgument(MESSAGES.responseCount);
  }
  if (!/^gemini-3/.test(model)) return null;
  // The current turn starts after the last user content with ordinary (non-functionResponse) parts.
  let start = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role !== 'model' && (contents[i].parts ?? []).some((p: Json) => !(p.functionResponse ?? p.function_response))) {
      start = i + 1;
      break;
    }
  }
  for (let i = start; i < contents.length; i++) {
    const first = callsOf(contents[i])[0];
    if (first && !(first.thoughtSignature ?? first.thought_signature)) {
      const call = first.functionCall ?? first.function_call;
      return invalidArgument(MESSAGES.missingSignature(String(call?.name), i + 1));
    }
  }
  return null;
}
