/**
 * Places the edges' labels so that none covers another or a state: each starts where its edge's
 * path has its middle, and one that would overlap goes to the nearest free place on a grid of its
 * own size around it (above or below first, then beside). Labels are placed in the order given,
 * so the same flow draws the same way. Pure: the canvas measures, this decides.
 */

/** An axis-aligned box by its top-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A label to place: its preferred centre and its size. */
export interface LabelBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Steps of its height tried up and down, and of its width left and right. */
const MAX_ROWS = 6;
const MAX_COLUMNS = 2;
/** Space kept between a label and what is around it, in pixels. */
const GAP = 4;

/** The box of a label centred on (x, y). */
function boxAt(label: LabelBox, x: number, y: number): Rect {
  return {
    x: x - label.width / 2,
    y: y - label.height / 2,
    width: label.width,
    height: label.height,
  };
}

export function overlaps(a: Rect, b: Rect, gap = 0): boolean {
  return (
    a.x < b.x + b.width + gap &&
    b.x < a.x + a.width + gap &&
    a.y < b.y + b.height + gap &&
    b.y < a.y + a.height + gap
  );
}

/** The offsets tried for a label, nearest first (below before above, right before left). */
function offsets(label: LabelBox): { dx: number; dy: number }[] {
  const list: { dx: number; dy: number; distance: number; order: number }[] = [];
  for (let column = -MAX_COLUMNS; column <= MAX_COLUMNS; column += 1) {
    for (let row = -MAX_ROWS; row <= MAX_ROWS; row += 1) {
      const dx = column * (label.width + GAP);
      const dy = row * (label.height + GAP);
      list.push({ dx, dy, distance: Math.hypot(dx, dy), order: list.length });
    }
  }
  return list
    .sort((a, b) => a.distance - b.distance || b.dy - a.dy || b.dx - a.dx || a.order - b.order)
    .map(({ dx, dy }) => ({ dx, dy }));
}

/**
 * The centre of each label, by id: its preferred place when that is free, else the nearest free
 * one around it. A label clear of the others but not of the states (none free) is
 * placed clear of the others only; with neither, it stays where it prefers.
 */
export function placeLabels(
  labels: readonly LabelBox[],
  obstacles: readonly Rect[],
): Map<string, { x: number; y: number }> {
  const placed: Rect[] = [];
  const centres = new Map<string, { x: number; y: number }>();
  const free = (box: Rect, avoidStates: boolean): boolean =>
    placed.every((other) => !overlaps(box, other, GAP)) &&
    (!avoidStates || obstacles.every((state) => !overlaps(box, state, GAP)));
  for (const label of labels) {
    let at = { x: label.x, y: label.y };
    search: for (const avoidStates of [true, false]) {
      for (const { dx, dy } of offsets(label)) {
        const x = label.x + dx;
        const y = label.y + dy;
        if (free(boxAt(label, x, y), avoidStates)) {
          at = { x, y };
          break search;
        }
      }
    }
    placed.push(boxAt(label, at.x, at.y));
    centres.set(label.id, at);
  }
  return centres;
}
