// A minimal MCP server over stdio (JSON-RPC 2.0, one message a line) that the agents start for the
// `mcp` task: one tool, `tg_stamp`, whose answer the upstream must see come back. Plain JavaScript so
// that every agent can start it with `node` alone.
import process from 'node:process';
import { createInterface } from 'node:readline';

const TOOL = {
  name: 'tg_stamp',
  description: 'Stamps a text: answers "stamped:" followed by the text. Used by the gateway test.',
  inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The text to stamp' } }, required: ['text'] },
};

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

function answer(message) {
  const { id, method, params } = message;
  if (id === undefined || id === null) return; // notifications (initialized, cancelled) need no answer
  if (method === 'initialize') {
    reply(id, { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tg', version: '1.0.0' } });
  } else if (method === 'tools/list') {
    reply(id, { tools: [TOOL] });
  } else if (method === 'tools/call') {
    const text = typeof params?.arguments?.text === 'string' ? params.arguments.text : '';
    reply(id, { content: [{ type: 'text', text: `stamped:${text}` }], isError: false });
  } else if (method === 'ping') {
    reply(id, {});
  } else if (method === 'resources/list' || method === 'prompts/list' || method === 'resources/templates/list') {
    reply(id, method === 'prompts/list' ? { prompts: [] } : method === 'resources/list' ? { resources: [] } : { resourceTemplates: [] });
  } else {
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } })}\n`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  try {
    answer(JSON.parse(line));
  } catch {
    // not JSON: ignored, as a stdio server must not write anything but messages
  }
});
