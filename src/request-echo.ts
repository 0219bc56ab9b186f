// Some upstreams quote the request in their 400s. A phrase of such a message that also stands in a
// string the client sent may be the client's own text echoed back, so what toolgate learns from
// upstream errors (no tool support, a rejected contract field) never rests on it.

/** Whether any string in `value` (keys too; walked without recursion) contains `phrase` (lower case). */
export function sentByClient(value: unknown, phrase: string): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.length >= phrase.length && node.toLowerCase().includes(phrase)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        stack.push(key);
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}
