import { createHash } from 'node:crypto';
import type { ToolNameRule } from '../providers/types.js';

// Upstreams restrict tool names (OpenAI: [a-zA-Z0-9_-], ≤ 64; Gemini: starts with a letter or
// `_`, then [a-zA-Z0-9_.:-], ≤ 64). Declared names that break the rule — `mcp/server:search.docs`,
// 80-character names — are encoded before the request goes up and decoded in the answer, so
// clients only ever see their own names. Valid names pass unchanged.
//
// Encoding (deterministic, so any instance computes the same name): every disallowed character
// becomes `_`, a leading character the rule does not allow gets an `_` in front, and the result
// is cut to leave room for `_` + 8 hex characters of SHA-256(original name). The hash keeps
// encoded names distinct from each other and from the valid declared names.

export const OPENAI_TOOL_NAME_RULE: ToolNameRule = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 };
export const GEMINI_TOOL_NAME_RULE: ToolNameRule = { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, maxLength: 64 };

export interface NameCodec {
  /** The name to send upstream for a declared name (unchanged when it is valid there). */
  encode(name: string): string;
  /** The declared name for a name the upstream used (unchanged when it was not encoded). */
  decode(upstreamName: string): string;
  /** Whether any declared name needed encoding. */
  readonly changed: boolean;
}

const HASH_LENGTH = 8;

export function createNameCodec(declaredNames: readonly string[], rule: ToolNameRule): NameCodec {
  const encoded = new Map<string, string>();
  const decoded = new Map<string, string>();
  const taken = new Set(declaredNames.filter((name) => isValidName(name, rule)));
  for (const name of new Set(declaredNames)) {
    if (taken.has(name)) continue;
    let upstream = encodeToolName(name, rule);
    // A clash (a declared valid name equal to an encoding, or two encodings) gets a longer hash.
    for (let extra = 4; taken.has(upstream) && extra <= 24; extra += 4) upstream = encodeToolName(name, rule, HASH_LENGTH + extra);
    taken.add(upstream);
    encoded.set(name, upstream);
    decoded.set(upstream, name);
  }
  return {
    // Names declared later (say, in history only) are still encoded deterministically.
    encode: (name) => encoded.get(name) ?? (isValidName(name, rule) || decoded.has(name) ? name : encodeToolName(name, rule)),
    decode: (upstreamName) => decoded.get(upstreamName) ?? upstreamName,
    changed: encoded.size > 0,
  };
}

export function isValidName(name: string, rule: ToolNameRule): boolean {
  return name.length > 0 && name.length <= rule.maxLength && rule.pattern.test(name);
}

/** The deterministic upstream form of a name that breaks `rule` (see the header comment). */
export function encodeToolName(name: string, rule: ToolNameRule, hashLength = HASH_LENGTH): string {
  const hash = createHash('sha256').update(name).digest('hex').slice(0, hashLength);
  let readable = '';
  for (const ch of name) readable += allowedInside(ch, rule) ? ch : '_';
  if (readable === '' || !allowedFirst(readable[0], rule)) readable = `_${readable}`;
  const room = rule.maxLength - hash.length - 1;
  const candidate = `${readable.slice(0, Math.max(room, 0))}_${hash}`;
  if (isValidName(candidate, rule)) return candidate;
  // A rule stricter than expected: letters and digits only.
  const fallback = `t${hash}`;
  return isValidName(fallback, rule) ? fallback : candidate;
}

// The rule is a whole-name pattern; probe it to learn which single characters it allows where.
function allowedInside(ch: string, rule: ToolNameRule): boolean {
  return rule.pattern.test(`a${ch}`) || rule.pattern.test(`_${ch}`);
}

function allowedFirst(ch: string, rule: ToolNameRule): boolean {
  return rule.pattern.test(ch) || rule.pattern.test(`${ch}a`);
}
