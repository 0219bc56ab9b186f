import { LRUCache } from 'lru-cache';
import type { ToolNameRule } from '../providers/types.js';
import { createNameCodec } from '../toolcalls/name-encoding.js';
import { createNameResolver } from '../toolcalls/names.js';

// Name resolvers and codecs depend only on the declared names (and the config's aliases / the
// upstream's name rule): built once per tool set, not per request. One set of caches per app
// instance (two gateways in one process never share them).

type NameResolver = ReturnType<typeof createNameResolver>;
type NameCodec = ReturnType<typeof createNameCodec>;

const MAX_TOOL_SETS = 1_000;

export class NameCaches {
  private readonly resolvers = new LRUCache<string, NameResolver>({ max: MAX_TOOL_SETS });
  private readonly codecs = new LRUCache<string, NameCodec>({ max: MAX_TOOL_SETS });
  // The last tool set looked up and what it got: an agent sends the same tools on every turn, and
  // comparing the names (a few short strings) costs less than building the key text and hashing it.
  // Resolvers and codecs are pure functions of the names (and the rule, the fixed aliases).
  private lastResolver: { names: readonly string[]; resolver: NameResolver } | undefined;
  private lastCodec: { names: readonly string[]; rule: ToolNameRule; codec: NameCodec } | undefined;

  /** `aliases` is the config's toolAliases: fixed for the instance's life. */
  constructor(private readonly aliases: Record<string, string>) {}

  resolver(names: readonly string[]): NameResolver {
    const last = this.lastResolver;
    if (last !== undefined && sameNames(last.names, names)) return last.resolver;
    const key = names.join('\u0000');
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      resolver = createNameResolver([...names], this.aliases);
      this.resolvers.set(key, resolver);
    }
    this.lastResolver = { names: [...names], resolver };
    return resolver;
  }

  codec(names: readonly string[], rule: ToolNameRule): NameCodec {
    const last = this.lastCodec;
    if (last !== undefined && last.rule === rule && sameNames(last.names, names)) return last.codec;
    const key = `${rule.pattern.source}\u0001${rule.maxLength}\u0001${names.join('\u0000')}`;
    let codec = this.codecs.get(key);
    if (!codec) {
      codec = createNameCodec([...names], rule);
      this.codecs.set(key, codec);
    }
    // Another rule object with the same pattern and length shares the cached codec, not this slot.
    this.lastCodec = { names: [...names], rule, codec };
    return codec;
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
