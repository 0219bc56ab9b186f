import { errors } from '../errors.js';
import type { Finding, RepairOptions } from '../repair/types.js';
import { isRecord, type ContentPart, type Item } from '../api/responses-types.js';
import type { FindingKind } from '../repair/kinds.js';

// Item repair: pure passes over the Responses `input` items, before anything reads them. Each
// returns findings `{kind, index, detail}` (index = the item's position) like the chat repair
// passes, so they feed the same header and metric. Real clients send tool outputs without
// `"type": "function_call_output"` (the model then never sees them), messages without `type`,
// chat-shaped messages, parts typed for the wrong role, and objects where strings belong.

// Descriptions live with every other finding kind in src/repair/kinds.ts.
export const ITEM_FINDING_KINDS = [
  'item_type_inferred',
  'message_content_fixed',
  'tool_output_stringified',
  'arguments_stringified',
  'history_restored',
  'orphan_tool_result',
] as const satisfies readonly FindingKind[];

export type ItemFindingKind = (typeof ITEM_FINDING_KINDS)[number];

export interface ItemPassResult {
  items: Item[];
  findings: Finding[];
}

export interface ItemPass {
  name: string;
  run(items: Item[]): ItemPassResult;
}

export function itemFinding(kind: ItemFindingKind, index: number, detail: string, advisory = false): Finding {
  return advisory ? { kind, index, detail, advisory: true } : { kind, index, detail };
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const has = (item: Item, key: string): boolean => item[key] !== undefined && item[key] !== null;

/** The typed item(s) an untyped or chat-shaped item stands for; null when it cannot be told. */
function typed(item: Item): Item[] | null {
  if (item.role === 'tool' && (has(item, 'tool_call_id') || has(item, 'call_id'))) {
    const { role: _role, tool_call_id, content, type: _type, name: _name, ...rest } = item;
    return [{ ...rest, type: 'function_call_output', call_id: String(tool_call_id ?? item.call_id), output: content ?? '' }];
  }
  if (item.role === 'assistant' && Array.isArray(item.tool_calls) && item.tool_calls.length > 0) {
    const out: Item[] = [];
    if (itemTextOf(item.content) !== '') out.push({ type: 'message', role: 'assistant', content: item.content });
    for (const call of item.tool_calls as unknown[]) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : call;
      out.push({ type: 'function_call', call_id: String(call.id ?? ''), name: String(fn.name ?? ''), arguments: fn.arguments ?? '{}' });
    }
    return out;
  }
  if (has(item, 'type')) return [item];
  if (has(item, 'call_id') && 'output' in item) return [{ ...item, type: 'function_call_output', call_id: String(item.call_id) }];
  if (has(item, 'call_id') && has(item, 'name')) return [{ ...item, type: 'function_call', call_id: String(item.call_id) }];
  if (typeof item.role === 'string' && 'content' in item) return [{ ...item, type: 'message' }];
  if (typeof item.id === 'string' && Object.keys(item).every((key) => key === 'id' || key === 'type')) return [{ id: item.id, type: 'item_reference' }];
  return null;
}

/** OpenAI's EasyInputMessage: `{role, content}` (and optionally `type: "message"`), a role a message item can have. */
function isEasyInputMessage(item: Item): boolean {
  return item.type === undefined && typeof item.role === 'string' && ROLES.has(item.role) && 'content' in item && !('tool_calls' in item);
}

function itemTextOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('') : '';
}

export const itemTypesPass: ItemPass = {
  name: 'item-types',
  run(items) {
    const findings: Finding[] = [];
    let changed = false;
    const out: Item[] = [];
    items.forEach((item, index) => {
      const result = typed(item);
      if (result === null) {
        const keys = Object.keys(item).join(', ') || 'no keys';
        throw errors.invalidRequest(
          `Invalid 'input[${index}]': the item has no 'type' and its keys (${keys}) do not say what it is. Add "type" ("message", "function_call", "function_call_output", "item_reference", ...).`,
          `input[${index}]`,
          'invalid_value',
        );
      }
      if (result.length !== 1 || result[0] !== item) {
        changed = true;
        // `{role, content}` is OpenAI's own easy input message: typing it changes nothing the client meant.
        if (!isEasyInputMessage(item)) findings.push(itemFinding('item_type_inferred', index, `typed as ${result.map((r) => r.type).join(' + ')}`));
      }
      out.push(...result);
    });
    return { items: changed ? out : items, findings };
  },
};

/** Part type a role's message carries. */
function textPartType(role: unknown): 'input_text' | 'output_text' {
  return role === 'assistant' ? 'output_text' : 'input_text';
}

/** One content part fixed for the role; the same object when fine. */
function fixPart(part: unknown, role: unknown): ContentPart {
  const want = textPartType(role);
  if (typeof part === 'string') return { type: want, text: part };
  if (!isRecord(part)) return { type: want, text: part === null || part === undefined ? '' : JSON.stringify(part) };
  const type = part.type;
  const isText = type === undefined || type === 'text' || type === 'input_text' || type === 'output_text';
  if (isText && typeof part.text === 'string') {
    if (type === want) return part as ContentPart;
    // Keys of one text type are not valid on the other (annotations/logprobs on input_text).
    return want === 'output_text' ? { type: want, text: part.text, annotations: Array.isArray(part.annotations) ? part.annotations : [] } : { type: want, text: part.text };
  }
  if (type === 'image_url' && role !== 'assistant') {
    const image = isRecord(part.image_url) ? part.image_url : { url: part.image_url };
    return { type: 'input_image', image_url: String(image.url ?? ''), detail: typeof image.detail === 'string' ? image.detail : 'auto' };
  }
  return part as ContentPart;
}

export const itemContentPass: ItemPass = {
  name: 'item-content',
  run(items) {
    const findings: Finding[] = [];
    let out: Item[] | null = null;
    items.forEach((item, index) => {
      if (item.type !== 'message') return;
      const content = item.content;
      let fixed: unknown = content;
      if (content === null || content === undefined) fixed = '';
      else if (isRecord(content)) fixed = [fixPart(content, item.role)];
      else if (Array.isArray(content)) {
        const parts = content.map((part) => fixPart(part, item.role));
        if (parts.some((part, i) => part !== content[i])) fixed = parts;
      } else if (typeof content !== 'string') fixed = String(content);
      if (fixed === content) return;
      out ??= items.slice();
      out[index] = { ...item, content: fixed };
      findings.push(itemFinding('message_content_fixed', index, `content of a ${String(item.role)} message fixed`));
    });
    return { items: out ?? items, findings };
  },
};

const OUTPUT_PART_TYPES = new Set(['input_text', 'input_image', 'input_file']);

export const itemOutputsPass: ItemPass = {
  name: 'item-outputs',
  run(items) {
    const findings: Finding[] = [];
    let out: Item[] | null = null;
    const set = (index: number, item: Item): void => {
      out ??= items.slice();
      out[index] = item;
    };
    items.forEach((item, index) => {
      if (item.type === 'function_call_output') {
        const output = item.output;
        const partList = Array.isArray(output) && output.every((part) => isRecord(part) && typeof part.type === 'string' && OUTPUT_PART_TYPES.has(part.type));
        if (typeof output === 'string' || partList) return;
        const text = output === null || output === undefined ? '' : JSON.stringify(output);
        set(index, { ...item, output: text });
        findings.push(itemFinding('tool_output_stringified', index, `output of call ${String(item.call_id)} given as ${describe(output)}`));
      } else if (item.type === 'function_call') {
        const args = item.arguments;
        if (typeof args === 'string' && args.trim() !== '') return;
        const text = isRecord(args) || Array.isArray(args) ? JSON.stringify(args) : '{}';
        set(index, { ...item, arguments: text });
        findings.push(itemFinding('arguments_stringified', index, `arguments of call ${String(item.call_id)} given as ${describe(args)}`));
      }
    });
    return { items: out ?? items, findings };
  },
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'an empty string' : `a ${typeof value}`;
}

export const ITEM_PASSES: readonly ItemPass[] = [itemTypesPass, itemContentPass, itemOutputsPass];

/** Runs the item passes (the ones not disabled). Strict mode: a needed repair is a 400 instead. */
export function repairItems(items: Item[], options: RepairOptions): ItemPassResult {
  let current = items;
  const findings: Finding[] = [];
  for (const pass of ITEM_PASSES) {
    if (options.disabled.has(pass.name)) continue;
    const result = pass.run(current);
    findings.push(...result.findings);
    current = result.items;
  }
  if (options.mode === 'strict' && findings.some((finding) => finding.advisory !== true)) {
    const list = findings.map((finding, i) => `${i + 1}) input[${finding.index}]: ${finding.detail} [${finding.kind}]`).join('; ');
    throw errors.invalidRequest(`The input items are invalid (strict mode, nothing was repaired). ${findings.length} problem(s): ${list}.`, 'input', 'invalid_tool_history');
  }
  checkItems(current);
  return { items: current, findings };
}

/** What must hold after repair for an item to be usable; a 400 naming the field otherwise. */
export function checkItems(items: readonly Item[]): void {
  items.forEach((item, index) => {
    const missing = (key: string): never => {
      const param = `input[${index}].${key}`;
      throw errors.invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
    };
    switch (item.type) {
      case 'message':
        if (!ROLES.has(String(item.role))) {
          const param = `input[${index}].role`;
          if (!has(item, 'role')) missing('role');
          throw errors.invalidRequest(`Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`, param, 'invalid_value');
        }
        return;
      case 'function_call':
        if (typeof item.call_id !== 'string' || item.call_id === '') missing('call_id');
        if (typeof item.name !== 'string' || item.name === '') missing('name');
        return;
      case 'function_call_output':
        if (typeof item.call_id !== 'string' || item.call_id === '') missing('call_id');
        return;
      case 'item_reference':
        if (typeof item.id !== 'string' || item.id === '') missing('id');
        return;
    }
  });
}
