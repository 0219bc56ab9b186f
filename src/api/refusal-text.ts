// OpenAI's spec makes `message.refusal` required (nullable). Many upstreams (TGI, some vLLM versions)
// omit it, and the gateway adds `refusal: null`. Serializing the whole answer again for that costs a
// JSON.stringify of it; instead the field goes into the upstream's own text, where that is provably
// exact, and the answer is serialized as before otherwise.
//
// Why it is exact. In valid JSON a quote inside a string is escaped, so an unescaped `"message"` is a
// whole string: a key, or a value (then `,`, `}` or `]` follows directly). A key named message written
// any other way (`\u006d…`, an escaped letter) is refused by `mayEscapeKeyLetters`. When every key named
// message in the text is written `"message":{` (no whitespace, an object value), and there are exactly as
// many as choices, each choice's own message key (each choice has one, and the choices' texts follow
// one another in order) is one of them, so they are all of them: no duplicate keys, no nested or extra
// objects keyed message. The field then goes first into the i-th one when choice i lacks it.

const KEY = '"message"';
const OPEN = '"message":{';
const FIELD = '"refusal":null';

/**
 * The upstream's text with `"refusal":null` as the first key of the message object of each choice
 * whose `lacks` is true, or undefined when that cannot be proven exact (the caller serializes).
 */
export function withRefusalText(text: string, lacks: readonly boolean[]): string | undefined {
  if (mayEscapeKeyLetters(text)) return undefined;
  let out = '';
  let copied = 0;
  let choice = 0;
  for (let at = text.indexOf(KEY); at !== -1; at = text.indexOf(KEY, at + KEY.length)) {
    // A quote after a backslash is inside a string (an opening quote never follows one).
    if (at > 0 && text.charCodeAt(at - 1) === BACKSLASH) continue;
    const after = text.charCodeAt(at + KEY.length);
    if (after === COMMA || after === CLOSE_BRACE || after === CLOSE_BRACKET) continue; // a value "message"
    if (!text.startsWith(OPEN, at) || choice === lacks.length) return undefined;
    if (lacks[choice++]) {
      const inside = at + OPEN.length;
      const next = text.charCodeAt(inside);
      // `{}` takes the field alone; `{"` takes it and a comma; anything else (`{ }`) is not worth proving.
      if (next !== QUOTE && next !== CLOSE_BRACE) return undefined;
      out += text.slice(copied, inside) + (next === QUOTE ? `${FIELD},` : FIELD);
      copied = inside;
    }
  }
  if (choice !== lacks.length) return undefined;
  return out + text.slice(copied);
}

/**
 * True when the text has a `\u` escape of a character from `` ` `` to DEL, which covers every letter
 * of "message": a key could spell it escaped and hide from the search. Upstreams escape control and
 * non-ASCII characters, not ASCII letters, so this rarely declines.
 */
function mayEscapeKeyLetters(text: string): boolean {
  for (let at = text.indexOf('\\u00'); at !== -1; at = text.indexOf('\\u00', at + 4)) {
    const digit = text.charCodeAt(at + 4);
    if (digit === SIX || digit === SEVEN) return true;
  }
  return false;
}

const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const SIX = 0x36;
const SEVEN = 0x37;
