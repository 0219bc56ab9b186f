import { readFileSync } from 'node:fs';

// A V8 heap snapshot read for bench/stream-heap.ts: nodes grouped by kind (constructor for objects,
// function name for closures, the kind of string/array/code otherwise), and a dominator tree for
// retained sizes (Cooper, Harvey and Kennedy's iterative algorithm over strong edges; weak edges
// retain nothing).

export interface Snapshot {
  count: number;
  /** Per node: its group key, self size, V8 object id. */
  key: string[];
  size: Float64Array;
  id: Float64Array;
  /** Edges out of each node (CSR): firstEdge[i]..firstEdge[i+1] index into `to`/`edgeName`/`weak`. */
  firstEdge: Uint32Array;
  to: Uint32Array;
  edgeName: string[];
  weak: Uint8Array;
}

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

function groupKey(type: string, name: string): string {
  switch (type) {
    case 'object':
      return name.startsWith('system / Context') ? '(context)' : name;
    case 'closure':
      return `closure ${name || '(anonymous)'}`;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'array':
      return `(array ${name})`;
    case 'native':
      return `(native ${name.split(' ')[0]})`;
    case 'hidden':
      return `(hidden ${name.replace(/\s*\/.*$/, '')})`;
    default:
      return `(${type})`;
  }
}

export function readSnapshot(path: string): Snapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [iType, iName, iId, iSize, iEdges] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((field) => meta.node_fields.indexOf(field));
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((field) => meta.edge_fields.indexOf(field));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const count = raw.nodes.length / nf;
  const key: string[] = new Array<string>(count);
  const size = new Float64Array(count);
  const id = new Float64Array(count);
  const firstEdge = new Uint32Array(count + 1);
  const edgeCount = raw.edges.length / ef;
  const to = new Uint32Array(edgeCount);
  const edgeName: string[] = new Array<string>(edgeCount);
  const weak = new Uint8Array(edgeCount);
  let edge = 0;
  for (let n = 0; n < count; n++) {
    const base = n * nf;
    key[n] = groupKey(nodeTypes[raw.nodes[base + iType]], raw.strings[raw.nodes[base + iName]]);
    size[n] = raw.nodes[base + iSize];
    id[n] = raw.nodes[base + iId];
    firstEdge[n] = edge;
    const edges = raw.nodes[base + iEdges];
    for (let e = 0; e < edges; e++, edge++) {
      const eb = edge * ef;
      const type = edgeTypes[raw.edges[eb + eType]];
      to[edge] = raw.edges[eb + eTo] / nf;
      const nameOrIndex = raw.edges[eb + eName];
      edgeName[edge] = type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : raw.strings[nameOrIndex];
      weak[edge] = type === 'weak' || type === 'shortcut' ? 1 : 0;
    }
  }
  firstEdge[count] = edge;
  return { count, key, size, id, firstEdge, to, edgeName, weak };
}

/** Immediate dominator of every node reachable from the root (node 0) over strong edges; -1 if unreachable. */
export function dominators(s: Snapshot): Int32Array {
  const order = new Int32Array(s.count).fill(-1); // postorder number
  const byOrder: number[] = [];
  const stack: number[] = [0];
  const cursor = new Uint32Array(s.count);
  const seen = new Uint8Array(s.count);
  seen[0] = 1;
  for (let n = 0; n < s.count; n++) cursor[n] = s.firstEdge[n];
  while (stack.length > 0) {
    const n = stack[stack.length - 1];
    if (cursor[n] < s.firstEdge[n + 1]) {
      const e = cursor[n]++;
      if (s.weak[e]) continue;
      const m = s.to[e];
      if (!seen[m]) {
        seen[m] = 1;
        stack.push(m);
      }
    } else {
      stack.pop();
      order[n] = byOrder.length;
      byOrder.push(n);
    }
  }
  // Predecessors over strong edges, reachable nodes only.
  const predCount = new Uint32Array(s.count + 1);
  for (let n = 0; n < s.count; n++) if (seen[n]) for (let e = s.firstEdge[n]; e < s.firstEdge[n + 1]; e++) if (!s.weak[e]) predCount[s.to[e] + 1]++;
  for (let n = 0; n < s.count; n++) predCount[n + 1] += predCount[n];
  const preds = new Uint32Array(predCount[s.count]);
  const fill = predCount.slice();
  for (let n = 0; n < s.count; n++) if (seen[n]) for (let e = s.firstEdge[n]; e < s.firstEdge[n + 1]; e++) if (!s.weak[e]) preds[fill[s.to[e]]++] = n;
  const idom = new Int32Array(s.count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (order[a] < order[b]) a = idom[a];
      while (order[b] < order[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = byOrder.length - 2; i >= 0; i--) {
      const n = byOrder[i];
      let next = -1;
      for (let p = predCount[n]; p < predCount[n + 1]; p++) {
        const pred = preds[p];
        if (idom[pred] === -1) continue;
        next = next === -1 ? pred : intersect(pred, next);
      }
      if (next !== -1 && idom[n] !== next) {
        idom[n] = next;
        changed = true;
      }
    }
  }
  return idom;
}

/** Retained size of every node, from its immediate dominators. */
export function retainedSizes(s: Snapshot, idom: Int32Array): Float64Array {
  // Children before parents: a node's depth in the dominator tree, deepest first.
  const depth = new Int32Array(s.count).fill(-1);
  depth[0] = 0;
  const depthOf = (n: number): number => {
    const path: number[] = [];
    let m = n;
    while (depth[m] === -1) {
      path.push(m);
      m = idom[m];
    }
    let d = depth[m];
    for (let i = path.length - 1; i >= 0; i--) depth[path[i]] = ++d;
    return depth[n];
  };
  const nodes: number[] = [];
  for (let n = 0; n < s.count; n++) {
    if (idom[n] === -1) continue;
    depthOf(n);
    nodes.push(n);
  }
  nodes.sort((a, b) => depth[b] - depth[a]);
  const retained = Float64Array.from(s.size);
  for (const n of nodes) if (n !== 0) retained[idom[n]] += retained[n];
  return retained;
}
