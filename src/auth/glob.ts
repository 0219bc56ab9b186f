// Model globs for gateway keys: `*` is any run of characters (slashes included, model ids
// contain them), `?` is one character, everything else is literal. Whole-name, case-sensitive.

export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

export type ModelMatcher = (names: readonly string[]) => boolean;

/** True when any glob matches any of the given names. */
export function modelMatcher(globs: readonly string[]): ModelMatcher {
  if (globs.includes('*')) return () => true;
  const patterns = globs.map(globToRegExp);
  return (names) => names.some((name) => patterns.some((pattern) => pattern.test(name)));
}
