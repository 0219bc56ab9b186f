// Reasoning wrappers models write around their thinking. Text inside a closed wrapper is
// reasoning, never a call; a wrapper that never closes still lets the model's own call markers
// through (Kimi K2 Thinking writes its call section after an unclosed <think>). Formats with
// channels of their own (gpt-oss harmony `analysis`) mark reasoning through BlockMatch segments.

export interface ReasoningWrapper {
  open: string;
  close: string;
}

export const REASONING_WRAPPERS: readonly ReasoningWrapper[] = [
  { open: '<think>', close: '</think>' }, // DeepSeek R1, Qwen3, QwQ, GLM, MiniMax, Hunyuan, Kimi K2 Thinking
  { open: '<thinking>', close: '</thinking>' },
  { open: '<seed:think>', close: '</seed:think>' }, // Seed-OSS
  { open: '◁think▷', close: '◁/think▷' }, // Kimi VL / Kimi thinking delimiters
  { open: '<|begin_of_thought|>', close: '<|end_of_thought|>' }, // Sky-T1, Bespoke-Stratos, OpenThoughts
  { open: '<|START_THINKING|>', close: '<|END_THINKING|>' }, // Cohere Command A Reasoning
];

/** How reasoning reaches the client: left in content as written (default), split out, or dropped. */
export type ReasoningMode = 'content' | 'split' | 'drop';

export const REASONING_MODES: readonly ReasoningMode[] = ['content', 'split', 'drop'];
