/**
 * Inside the canvas: when the selection changes (say from the state list or a problem), the
 * selected state is brought to the middle of the view, at a zoom where it can be read: in a short
 * glide, or at once for people who ask their system for less motion.
 */
import { useReactFlow } from '@xyflow/react';
import { useEffect } from 'react';

/** The zoom range a selected state is shown at (the current zoom, when inside it). */
const READABLE_ZOOM = 0.7;
const CLOSEST_ZOOM = 1.2;

export function FollowSelection({ selected }: { selected: string | null }) {
  const flow = useReactFlow();
  useEffect(() => {
    if (selected === null) return;
    const node = flow.getNode(selected);
    if (!node) return;
    const width = node.measured?.width ?? 230;
    const height = node.measured?.height ?? 80;
    void flow.setCenter(node.position.x + width / 2, node.position.y + height / 2, {
      zoom: Math.min(Math.max(flow.getZoom(), READABLE_ZOOM), CLOSEST_ZOOM),
      duration: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 200,
    });
    // Only a new selection moves the view; the flow object changes with every render.
  }, [selected]);
  return null;
}
