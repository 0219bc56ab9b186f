import { createRequire } from 'node:module';
import { Ajv, type Format } from 'ajv';
import formatsModule from 'ajv-formats';
import type { RE2JS } from 're2js';

// Regexes from client tool schemas (`pattern`, `patternProperties`, `propertyNames.pattern`) run
// against model output. JavaScript's engine backtracks: `^A(a+)+B$` on 27 characters took 6 s.
// They run in RE2 (re2js, pure JS, linear time) instead. What RE2 cannot express — lookarounds,
// backreferences — is not checked at all (recorded in `unsupportedPatterns`), never run by the
// backtracking engine. The same goes for ajv-formats' regexes: RE2 where it compiles them, else
// the native regex only on strings up to FORMAT_NATIVE_MAX_CHARS (longer ones are not checked).

// re2js (~0.6 MB of heap once loaded) and the formats' compiled regexes (~0.5 MB) are made at the
// first schema or string that needs them, not at startup: most tool schemas have no `pattern` and no
// `format`. re2js is required (its CommonJS build) so that loading stays synchronous inside ajv's
// compile; the first load costs a few milliseconds once.

/** Longest string a format regex RE2 cannot run is checked on (hostname: 253, e-mail: 254…). */
export const FORMAT_NATIVE_MAX_CHARS = 1_024;

export interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}

/** Patterns the last compilations could not check (filled while ajv compiles; read by the caller). */
export const unsupportedPatterns: string[] = [];

/** ajv's `code.regExp` engine: RE2 semantics, or "always matches" (noted) when RE2 refuses the pattern. */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const compiled = compileLinear(pattern, flags);
    if (compiled) return compiled;
    unsupportedPatterns.push(pattern);
    // ajv keys compiled patterns by toString(): distinct per pattern.
    return { test: () => true, toString: () => `/${pattern}/${flags} (not checked)` };
  },
  { code: 'linearRegExp' },
);

let engine: typeof RE2JS | undefined;

function re2(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}

/** The pattern compiled by RE2, or undefined when RE2 cannot express it. */
export function compileLinear(pattern: string, flags = ''): RegExpLike | undefined {
  const RE2JS = re2();
  let options = 0;
  if (flags.includes('i')) options |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('s')) options |= RE2JS.DOTALL;
  if (flags.includes('m')) options |= RE2JS.MULTILINE;
  try {
    const re = RE2JS.compile(toRe2Syntax(pattern), options);
    return { test: (text) => re.test(text), toString: () => `/${pattern}/${flags}` };
  } catch {
    return undefined;
  }
}

/** ECMAScript escapes RE2 spells differently: `\uXXXX` and `\u{X…}` become `\x{…}`. One pass. */
function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== '\\' || i + 1 >= pattern.length) {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    const braced = next === 'u' ? /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 2, i + 10)) : null;
    const plain = next === 'u' && !braced ? /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2, i + 6)) : null;
    if (braced) {
      out += `\\x{${braced[1]}}`;
      i += 1 + braced[0].length;
    } else if (plain) {
      out += `\\x{${plain[0]}}`;
      i += 1 + plain[0].length;
    } else {
      out += c + next;
      i++;
    }
  }
  return out;
}

type FormatValidator = RegExp | ((text: string) => boolean);
type FormatEntry = FormatValidator | { validate: FormatValidator; [key: string]: unknown } | true;

/** ajv-formats' full formats, with every regex made linear or length-capped (see the header). */
export function linearFormats(): Record<string, Format> {
  const out: Record<string, Format> = {};
  for (const [name, entry] of Object.entries(ajvFullFormats())) {
    if (entry === true || typeof entry === 'function') out[name] = entry === true ? true : capped(entry);
    else if (entry instanceof RegExp) out[name] = regexFormat(entry);
    else out[name] = { ...entry, validate: entry.validate instanceof RegExp ? regexFormat(entry.validate) : capped(entry.validate) } as Format;
  }
  return out;
}

/** ajv-formats' "full" formats as its plugin adds them to an ajv instance (the package's public API). */
function ajvFullFormats(): Record<string, FormatEntry> {
  // CommonJS under NodeNext: the default import is the module object, the plugin its `default`.
  const addFormats = formatsModule.default;
  const probe = new Ajv({ validateSchema: false, meta: false });
  addFormats(probe, { mode: 'full', keywords: false });
  return probe.formats as Record<string, FormatEntry>;
}

/** Compiled at its first check (see the header). */
function regexFormat(native: RegExp): (text: string) => boolean {
  let check: ((text: string) => boolean) | undefined;
  return (text) => {
    if (!check) {
      const linear = compileLinear(native.source, native.flags);
      check = linear ? (value) => linear.test(value) : capped((value) => native.test(value));
    }
    return check(text);
  };
}

// Function formats (date-time, uri, …) run native regexes inside ajv-formats: length-capped too.
// A string over the cap is not checked (treated as valid), like an unsupported pattern.
function capped(validate: (text: string) => boolean): (text: string) => boolean {
  return (text) => (typeof text === 'string' && text.length > FORMAT_NATIVE_MAX_CHARS ? true : validate(text));
}
