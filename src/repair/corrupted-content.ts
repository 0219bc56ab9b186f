import type { RawChatMessage, ContentPart } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { clip, finding, hasCalls, isRecord } from './util.js';

// Pass 9: frameworks that stringify their own objects send reprs as text:
// `<agent_framework._types.RawChatMessage object at 0x10c394210>`, `[object Object]`. The model learns
// nothing from them and may start imitating them. Always a finding; with corruptedContent 'drop'
// the repr text is removed: a message that was nothing but reprs goes away (a tool result keeps
// its place with options.missingResultText, an assistant with calls keeps its calls).

const REPR = /<[A-Za-z_][\w.]*(?: [^<>\n]{0,120}?)? at 0x[0-9a-fA-F]+>|\[object [A-Z][A-Za-z]*\]/g;
const LEFTOVER = /^[\s,;[\](){}'"]*$/;

// One cheap scan first: the full pattern only runs on text that could hold a repr.
const MAYBE = /0x|\[object /;

function mayHaveRepr(text: string): boolean {
  return MAYBE.test(text);
}

function reprsIn(text: string): string[] {
  return mayHaveRepr(text) ? (text.match(REPR) ?? []) : [];
}

function strip(text: string): string {
  const out = text.replace(REPR, '');
  return LEFTOVER.test(out) ? '' : out;
}

/** All reprs found in a message's text (string content or text parts). */
function findReprs(content: unknown): string[] {
  if (typeof content === 'string') return reprsIn(content);
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? reprsIn(part.text) : []));
}

/** Content without reprs; '' when nothing else was there. */
function cleaned(content: RawChatMessage['content']): RawChatMessage['content'] {
  if (typeof content === 'string') return strip(content);
  if (!Array.isArray(content)) return content;
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (typeof part.text !== 'string') {
      parts.push(part);
      continue;
    }
    const text = strip(part.text);
    if (text !== '') parts.push({ ...part, text });
  }
  return parts.length === 0 ? '' : parts;
}

export const corruptedContentPass: RepairPass = {
  name: 'corrupted-content',
  run(request, context) {
    const messages = request.messages;
    const drop = context.options.corruptedContent === 'drop';
    const findings: Finding[] = [];
    let out: RawChatMessage[] | null = null;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      const reprs = findReprs(message.content);
      if (reprs.length === 0) {
        out?.push(message);
        continue;
      }
      const what = `${message.role} text holds ${reprs.length === 1 ? 'an object repr' : `${reprs.length} object reprs`} (${clip(reprs[0], 80)})`;
      if (!drop) {
        out?.push(message);
        findings.push(finding('corrupted_content', i, `${what}: kept`, true));
        continue;
      }
      out ??= messages.slice(0, i);
      const content = cleaned(message.content);
      if (content !== '') {
        out.push({ ...message, content });
        findings.push(finding('corrupted_content', i, `${what}: repr removed, the rest kept`));
      } else if (message.role === 'tool') {
        out.push({ ...message, content: context.options.missingResultText });
        findings.push(finding('corrupted_content', i, `${what}: the result is treated as missing`));
      } else if (hasCalls(message)) {
        out.push({ ...message, content: null });
        findings.push(finding('corrupted_content', i, `${what}: text dropped, calls kept`));
      } else if (messages.length === 1) {
        out.push({ ...message, content: '' });
        findings.push(finding('corrupted_content', i, `${what}: text dropped`));
      } else {
        findings.push(finding('corrupted_content', i, `${what}: message dropped`));
      }
    }
    return { request: out === null ? request : { ...request, messages: out }, findings };
  },
};
