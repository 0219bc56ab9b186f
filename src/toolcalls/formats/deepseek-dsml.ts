import { defineFormat } from './define.js';
import { matchInvokeSection } from './invoke-xml.js';

// DeepSeek V3.2 and V4 DSML markup (as its encoding script writes calls and SGLang's deepseekv32 detector
// reads them); string="true" values are text, string="false" values are JSON:
//   <｜DSML｜function_calls>
//   <｜DSML｜invoke name="get_weather">
//   <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
//   <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//   </｜DSML｜invoke>
//   </｜DSML｜function_calls>
// Closing tags without the DSML prefix are accepted too (the model mixes them), and so is the
// ASCII-bar spelling <|DSML|…> some providers' decoders produce. The DSML-less
// spelling (<function_calls><invoke name=…>) is also read; <function_calls> holding Python-style
// calls (OLMo-3) is another format's.

const DSML = { open: '<｜DSML｜function_calls>', tag: 'function_calls', tags: { prefix: '｜DSML｜', plainClosers: true } } as const;
const ASCII = { open: '<|DSML|function_calls>', tag: 'function_calls', tags: { prefix: '|DSML|', plainClosers: true } } as const;
const PLAIN = { open: '<function_calls>', tag: 'function_calls', tags: { prefix: '' } } as const;
// DeepSeek V4 keeps the V3.2 grammar inside <｜DSML｜tool_calls>…</｜DSML｜tool_calls> (vLLM's deepseekv4 parser).
const V4 = { open: '<｜DSML｜tool_calls>', tag: 'tool_calls', tags: DSML.tags } as const;
const V4_ASCII = { open: '<|DSML|tool_calls>', tag: 'tool_calls', tags: ASCII.tags } as const;
const SECTIONS = [DSML, ASCII, V4, V4_ASCII, PLAIN];

export const deepseekDsmlFormat = defineFormat({
  name: 'deepseek-dsml',
  triggers: '<',
  detect: (text) => SECTIONS.some((section) => text.includes(section.open)),
  matchAt(text, start, ctx, env) {
    for (const section of SECTIONS) {
      const match = matchInvokeSection(text, start, section, ctx, env);
      if (match.kind !== 'none' || match.skipTo !== undefined) return match;
    }
    return { kind: 'none' };
  },
});
