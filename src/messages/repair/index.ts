import { errors } from '../../errors.js';
import type { Finding, RepairOptions } from '../../repair/types.js';
import type { MessagesRequest } from '../types.js';
import { BLOCK_SHAPES, shapeBlocks } from './block-shapes.js';
import { emptyTextPass } from './empty-text.js';
import type { MessagesHistory, MessagesPass } from './types.js';

// The Messages-dialect passes, in order: block-shapes first (every later pass and the translation
// read typed blocks), then the passes over typed blocks. Strict mode refuses what a pass would fix.

export const MESSAGES_PASSES: readonly MessagesPass[] = [emptyTextPass];

export const MESSAGES_PASS_NAMES: readonly string[] = [BLOCK_SHAPES, ...MESSAGES_PASSES.map((pass) => pass.name)];

export function repairMessages(request: MessagesRequest, options: RepairOptions): { history: MessagesHistory; findings: Finding[] } {
  const shaped = shapeBlocks(request.system, request.messages, !options.disabled.has(BLOCK_SHAPES));
  let history = shaped.history;
  const findings = [...shaped.findings];
  for (const pass of MESSAGES_PASSES) {
    if (options.disabled.has(pass.name)) continue;
    const result = pass.run(history);
    history = result.history;
    findings.push(...result.findings);
  }
  if (options.mode === 'strict' && findings.length > 0) {
    const list = findings.map((f, i) => `${i + 1}) ${f.index < 0 ? 'system' : `messages[${f.index}]`}: ${f.detail} [${f.kind}]`);
    throw errors.invalidRequest(`The messages need repairs (strict mode, nothing was repaired): ${list.join('; ')}.`, 'messages', 'invalid_tool_history');
  }
  return { history, findings };
}
