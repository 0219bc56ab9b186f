import { scanWholeText } from '../assemble.js';
import type { FormatDefinition, ToolCallFormat } from './types.js';

/** Completes a format with its whole-text `parse` (the shared scanner with this format alone). */
export function defineFormat(definition: FormatDefinition): ToolCallFormat {
  const format: ToolCallFormat = {
    ...definition,
    parse: (text, ctx) => (definition.detect(text) ? scanWholeText(text, ctx, [format]).result : null),
  };
  return format;
}
