/**
 * Inside the canvas, the view follows the editing. When states are added or removed, the whole
 * graph is fitted in view if it can be at a readable zoom (a flow being built stays in sight,
 * with the state just made), else the selected state is brought to the middle. When only the
 * selection changes (say from the state list or a problem), the selected state is brought to the
 * middle at a zoom where it can be read. In a short glide, or at once for people who ask their
 * system for less motion.
 */
import { useReactFlow, useStore } from '@xyflow/react';
import { useEffect, useRef } from 'react';

/** The zoom range a selected state is shown at (the current zoom, when inside it). */
const READABLE_ZOOM = 0.7;
const CLOSEST_ZOOM = 1.2;
/** Space kept around a fitted graph, as a share of the view. */
const FIT_PADDING = 0.1;

export function FollowSelection({ selected, states }: { selected: string | null; states: number }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const shownStates = useRef(states);
  useEffect(() => {
    const duration = window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 200;
    const grew = shownStates.current !== states;
    shownStates.current = states;
    if (grew) {
      const bounds = flow.getNodesBounds(flow.getNodes());
      const zoom = Math.min(
        width / (bounds.width * (1 + FIT_PADDING)),
        height / (bounds.height * (1 + FIT_PADDING)),
      );
      if (zoom >= READABLE_ZOOM) {
        void flow.fitView({ padding: FIT_PADDING, maxZoom: 1, duration });
        return;
      }
    }
    if (selected === null) return;
    const node = flow.getNode(selected);
    if (!node) return;
    const nodeWidth = node.measured?.width ?? 230;
    const nodeHeight = node.measured?.height ?? 80;
    void flow.setCenter(node.position.x + nodeWidth / 2, node.position.y + nodeHeight / 2, {
      zoom: Math.min(Math.max(flow.getZoom(), READABLE_ZOOM), CLOSEST_ZOOM),
      duration,
    });
    // Only a new selection or a new count of states moves the view; the flow object changes
    // with every render.
  }, [selected, states]);
  return null;
}
