// Module-resolution hook for test/toolcalls/linear-regexp.test.ts (runs on Node's loader thread):
// reports every resolved URL under re2js to the test through a MessagePort. Resolving the specifier
// `toolgate-probe:flush` posts a marker, so the test knows every earlier report has arrived.
let port;

export function initialize(data) {
  port = data.port;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'toolgate-probe:flush') {
    port.postMessage('flush');
    return { url: 'data:text/javascript,export default 1', shortCircuit: true };
  }
  const result = await nextResolve(specifier, context);
  if (result.url.includes('/re2js/')) port.postMessage(result.url);
  return result;
}
