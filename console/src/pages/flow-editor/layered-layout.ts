/**
 * A small layered layout (Sugiyama-style) for the flow graph, left to right: a state's column is
 * its distance from the start (breadth-first), states within a column are ordered by the mean
 * position of their neighbours (a few sweeps cut most crossings), and tall columns wrap. Linear
 * in states and links per sweep, so a 200-state flow lays out in well under a frame.
 */

export interface LayoutOptions {
  /** Horizontal distance between columns, in pixels. @defaultValue 340 */
  columnGap?: number;
  /** Vertical distance between rows, in pixels. @defaultValue 130 */
  rowGap?: number;
  /** States in one column before it wraps into another. @defaultValue 14 */
  maxPerColumn?: number;
  /** Ordering sweeps (each goes right, then left). @defaultValue 4 */
  sweeps?: number;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * Positions for `ids` (top-left corners). `links` are [from, to] pairs between ids (others and
 * self-links are ignored); `roots` start the layers (the flow's start first); states no root
 * reaches begin layers of their own.
 */
export function layeredLayout(
  ids: readonly string[],
  links: readonly (readonly [string, string])[],
  roots: readonly string[],
  options: LayoutOptions = {},
): Map<string, Point> {
  const { columnGap = 340, rowGap = 130, maxPerColumn = 14, sweeps = 4 } = options;
  const known = new Set(ids);
  const out = new Map<string, string[]>();
  const neighbours = new Map<string, string[]>();
  for (const id of ids) {
    out.set(id, []);
    neighbours.set(id, []);
  }
  for (const [from, to] of links) {
    if (from === to || !known.has(from) || !known.has(to)) continue;
    out.get(from)?.push(to);
    neighbours.get(from)?.push(to);
    neighbours.get(to)?.push(from);
  }

  // Columns: breadth-first distance from the roots, then from each state still unplaced.
  const layer = new Map<string, number>();
  const layers: string[][] = [];
  const place = (id: string, depth: number): void => {
    layer.set(id, depth);
    (layers[depth] ??= []).push(id);
  };
  const seeds = [...roots.filter((r) => known.has(r)), ...ids];
  for (const seed of seeds) {
    if (layer.has(seed)) continue;
    place(seed, 0);
    const queue = [seed];
    for (let head = 0; head < queue.length; head++) {
      const id = queue[head] as string;
      const depth = (layer.get(id) ?? 0) + 1;
      for (const next of out.get(id) ?? []) {
        if (layer.has(next)) continue;
        place(next, depth);
        queue.push(next);
      }
    }
  }

  // Order within columns by the barycentre of neighbours in the adjacent column.
  const order = new Map<string, number>();
  for (const column of layers) column.forEach((id, i) => order.set(id, i));
  const reorder = (column: string[], side: number): void => {
    const score = new Map<string, number>();
    for (const id of column) {
      const depth = layer.get(id) ?? 0;
      let sum = 0;
      let count = 0;
      for (const n of neighbours.get(id) ?? []) {
        if (layer.get(n) !== depth + side) continue;
        sum += order.get(n) ?? 0;
        count++;
      }
      score.set(id, count > 0 ? sum / count : (order.get(id) ?? 0));
    }
    column.sort((a, b) => (score.get(a) ?? 0) - (score.get(b) ?? 0));
    column.forEach((id, i) => order.set(id, i));
  };
  for (let s = 0; s < sweeps; s++) {
    for (let d = 1; d < layers.length; d++) reorder(layers[d] ?? [], -1);
    for (let d = layers.length - 2; d >= 0; d--) reorder(layers[d] ?? [], 1);
  }

  // Coordinates: each column centred on y = 0; a tall column wraps into extra columns.
  const positions = new Map<string, Point>();
  let x = 0;
  for (const column of layers) {
    for (let start = 0; start < column.length; start += maxPerColumn) {
      const part = column.slice(start, start + maxPerColumn);
      part.forEach((id, i) => positions.set(id, { x, y: (i - (part.length - 1) / 2) * rowGap }));
      x += columnGap;
    }
  }
  return positions;
}
