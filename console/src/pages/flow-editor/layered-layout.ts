/**
 * A small layered layout (Sugiyama-style) for the flow graph, top to bottom: a state's row is its
 * distance from the start (breadth-first), states within a row are ordered by the mean position
 * of their neighbours (a few sweeps cut most crossings), and long rows wrap. Top to bottom
 * because nodes are wider than tall: a typical flow then fits a landscape canvas at a readable
 * zoom. Linear
 * in states and links per sweep, so a 200-state flow lays out in well under a frame.
 */

export interface LayoutOptions {
  /** Horizontal distance between states in a row, in pixels. @defaultValue 280 */
  columnGap?: number;
  /** Vertical distance between rows, in pixels. @defaultValue 170 */
  rowGap?: number;
  /** States in one row before it wraps into another. @defaultValue 8 */
  maxPerRow?: number;
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
  const { columnGap = 280, rowGap = 170, maxPerRow = 8, sweeps = 4 } = options;
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

  // Order within rows by the barycentre of neighbours in the adjacent row.
  const order = new Map<string, number>();
  for (const row of layers) row.forEach((id, i) => order.set(id, i));
  const reorder = (row: string[], side: number): void => {
    const score = new Map<string, number>();
    for (const id of row) {
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
    row.sort((a, b) => (score.get(a) ?? 0) - (score.get(b) ?? 0));
    row.forEach((id, i) => order.set(id, i));
  };
  for (let s = 0; s < sweeps; s++) {
    for (let d = 1; d < layers.length; d++) reorder(layers[d] ?? [], -1);
    for (let d = layers.length - 2; d >= 0; d--) reorder(layers[d] ?? [], 1);
  }

  // Coordinates: each row centred on x = 0; a long row wraps into extra rows.
  const positions = new Map<string, Point>();
  let y = 0;
  for (const row of layers) {
    for (let start = 0; start < row.length; start += maxPerRow) {
      const part = row.slice(start, start + maxPerRow);
      part.forEach((id, i) => positions.set(id, { x: (i - (part.length - 1) / 2) * columnGap, y }));
      y += rowGap;
    }
  }
  return positions;
}
