import { defineFormat } from './define.js';
import { matchInvokeSection } from './invoke-xml.js';

// MiniMax M2 / M2.1 / M2.5 (as its chat template writes calls and vLLM's minimax_m2 parser reads them):
//   <minimax:tool_call>
//   <invoke name="get_weather">
//   <parameter name="city">Paris</parameter>
//   </invoke>
//   </minimax:tool_call>
// Several invokes may share one section. Values are stripped of surrounding whitespace (as MiniMax's
// own parsing guide does: an indented call has indented values) and typed from the tool's schema. The section
// markers are special tokens a provider may drop when it decodes: bare invokes are read too.

const SECTION = { open: '<minimax:tool_call>', tag: 'minimax:tool_call', tags: { prefix: '', stripValues: true } } as const;
const BARE = { ...SECTION, open: '' } as const;
const INVOKE = '<invoke name=';

export const minimaxM2Format = defineFormat({
  name: 'minimax-m2',
  triggers: '<',
  detect: (text) => text.includes(SECTION.open) || text.includes(INVOKE),
  matchAt(text, start, ctx, env) {
    const section = matchInvokeSection(text, start, SECTION, ctx, env);
    return section.kind === 'none' && section.skipTo === undefined ? matchInvokeSection(text, start, BARE, ctx, env) : section;
  },
});
