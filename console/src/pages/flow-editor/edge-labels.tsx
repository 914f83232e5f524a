/**
 * The edges' labels (a transition's condition, "on fail"), drawn above the edges in one layer
 * and placed together (label-placement.ts) so that none covers another or a state, which React
 * Flow's own labels, each at its edge's middle, do as soon as two ways out of a state lead to the
 * same state. A label is as wide as its text is expected to be (the placement's box is the box
 * drawn) and carries its edge's colour.
 */
import {
  EdgeLabelRenderer,
  Position,
  getBezierPath,
  getSmoothStepPath,
  useStore,
  useStoreApi,
  type ReactFlowState,
} from '@xyflow/react';
import { useMemo } from 'react';
import { placeLabels, type LabelBox, type Rect } from './label-placement.ts';

export interface LabelledEdge {
  id: string;
  source: string;
  target: string;
  label: string;
  /** Drawn as a smooth step (transitions) or a curve (a wait's on_fail). */
  curve: boolean;
  colour: string;
}

/** The label's font is 11 px (flow-editor.css); a character is at most about this wide. */
const CHAR_PX = 6.4;
const PADDING_PX = 12;
const LABEL_HEIGHT = 18;

/** A key that changes when a state moves or is measured (and not when the view pans). */
function boxesKey(state: ReactFlowState): string {
  let key = '';
  for (const node of state.nodeLookup.values()) {
    const { x, y } = node.internals.positionAbsolute;
    key += `${node.id}:${x}:${y}:${node.measured.width}:${node.measured.height};`;
  }
  return key;
}

function nodeRects(state: ReactFlowState): Map<string, Rect> {
  const rects = new Map<string, Rect>();
  for (const node of state.nodeLookup.values()) {
    const { x, y } = node.internals.positionAbsolute;
    const width = node.measured.width ?? node.width ?? 0;
    const height = node.measured.height ?? node.initialHeight ?? 0;
    rects.set(node.id, { x, y, width, height });
  }
  return rects;
}

/** Where React Flow puts the middle of an edge from the foot of `from` to the head of `to`. */
function middle(from: Rect, to: Rect, curve: boolean): { x: number; y: number } {
  const ends = {
    sourceX: from.x + from.width / 2,
    sourceY: from.y + from.height,
    sourcePosition: Position.Bottom,
    targetX: to.x + to.width / 2,
    targetY: to.y,
    targetPosition: Position.Top,
  };
  const [, x, y] = curve ? getBezierPath(ends) : getSmoothStepPath(ends);
  return { x, y };
}

export function EdgeLabels({ edges }: { edges: readonly LabelledEdge[] }) {
  const key = useStore(boxesKey);
  const store = useStoreApi();
  const placed = useMemo(() => {
    const rects = nodeRects(store.getState());
    const labels: LabelBox[] = [];
    for (const edge of edges) {
      const from = rects.get(edge.source);
      const to = rects.get(edge.target);
      if (!from || !to) continue;
      const at = middle(from, to, edge.curve);
      const width = Math.ceil(edge.label.length * CHAR_PX + PADDING_PX);
      labels.push({ id: edge.id, ...at, width, height: LABEL_HEIGHT });
    }
    const centres = placeLabels(labels, [...rects.values()]);
    return labels.map((box) => ({ box, at: centres.get(box.id)! }));
    // `key` stands for the states' boxes, which are read from the store.
  }, [edges, key, store]);
  const byId = new Map(edges.map((e) => [e.id, e]));
  return (
    <EdgeLabelRenderer>
      {placed.map(({ box, at }) => {
        const edge = byId.get(box.id)!;
        return (
          <div
            key={box.id}
            className="edge-label"
            data-edge={box.id}
            style={{
              width: box.width,
              height: box.height,
              borderColor: edge.colour,
              transform: `translate(-50%, -50%) translate(${at.x}px, ${at.y}px)`,
            }}
          >
            {edge.label}
          </div>
        );
      })}
    </EdgeLabelRenderer>
  );
}
