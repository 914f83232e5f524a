/**
 * The flow as a graph (React Flow): pan and zoom, a minimap for big flows, a click selects a
 * state, and while it may be edited a drag from a state's lower handle to another state connects
 * them (to empty space: to a new state, drawn where the drag ended) and a state dragged by its
 * body stays where it is dropped (the flow's `layout`). Edge labels are drawn apart from the
 * edges, placed so that none covers another (edge-labels.tsx). Nodes and edges are built once
 * per flow or findings change, and a node whose content did not change keeps its object, so
 * React Flow leaves it alone.
 */
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  type Edge,
  type FitViewOptions,
  type NodeMouseHandler,
  type ReactFlowInstance,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useRef, useState, type CSSProperties } from 'react';
import type { StateDropOff } from './drop-off.tsx';
import { EdgeLabels, type LabelledEdge } from './edge-labels.tsx';
import { FollowSelection } from './follow-selection.tsx';
import { flowToGraph, type GraphNode } from './flow-graph.ts';
import type { Problem } from '../../api/types.ts';
import { StateNode, type StateNodeType } from './state-node.tsx';

const nodeTypes = { state: StateNode };

/** The state whose node is under the pointer where a drag ended, or null on empty space. */
function stateUnder(event: MouseEvent | TouchEvent): string | null {
  const point = 'changedTouches' in event ? event.changedTouches[0] : event;
  if (!point) return null;
  const node = document
    .elementFromPoint(point.clientX, point.clientY)
    ?.closest<HTMLElement>('.react-flow__node');
  return node?.dataset.id ?? null;
}

/** Flows with more states than this get a minimap. */
const MINIMAP_FROM_STATES = 12;

/**
 * Flows with more states than this open on their first rows at a readable zoom instead of the
 * whole graph (which would be too small to read); the minimap shows the rest.
 */
const FIT_ALL_UP_TO_STATES = 30;
const FIRST_ROWS_PX = 700;

/** The fit view button: the whole graph, never larger than life (a small flow would fill it). */
const FIT_BUTTON: FitViewOptions = { padding: 0.1, maxZoom: 1 };

/** A state node's size in pixels (its width is fixed in flow-editor.css; height is typical). */
const NODE_WIDTH = 230;
const NODE_HEIGHT = 80;

interface FlowCanvasProps {
  flow: unknown;
  problems: ReadonlyMap<string | null, Problem[]>;
  warnings: ReadonlyMap<string | null, Problem[]>;
  selected: string | null;
  onSelect: (name: string | null) => void;
  /**
   * Given when the flow may be edited: a drag from a state's handle to another state connects
   * them, and to empty space makes a new state it leads to, drawn where the drag ended (`at`).
   */
  onConnect?: (from: string, to: string | null, at?: { x: number; y: number }) => void;
  /** Given when the flow may be edited: a state dragged to a place of its own, dropped there. */
  onMove?: (name: string, at: { x: number; y: number }) => void;
  /** Each state's drop-off, shown on its node, when the operator asked for it. */
  dropOff?: ReadonlyMap<string, StateDropOff> | undefined;
}

function sameNode(a: StateNodeType, b: GraphNode, selected: boolean): boolean {
  return (
    a.selected === selected &&
    a.position.x === b.position.x &&
    a.position.y === b.position.y &&
    a.data.isStart === b.data.isStart &&
    a.data.problems === b.data.problems &&
    a.data.warnings === b.data.warnings &&
    a.data.dropOff === b.data.dropOff &&
    a.data.lines.join('\n') === b.data.lines.join('\n')
  );
}

const EDGE_COLOUR = { next: '#475569', transition: '#2563eb', on_fail: '#b91c1c' };
const EDGE_STYLE: Record<string, CSSProperties> = {
  next: { stroke: EDGE_COLOUR.next },
  transition: { stroke: EDGE_COLOUR.transition },
  on_fail: { stroke: EDGE_COLOUR.on_fail, strokeDasharray: '6 4' },
};

export function FlowCanvas({
  flow,
  problems,
  warnings,
  selected,
  onSelect,
  onConnect,
  onMove,
  dropOff,
}: FlowCanvasProps) {
  const graph = useMemo(() => {
    const built = flowToGraph(flow, problems, warnings);
    if (!dropOff) return built;
    const nodes = built.nodes.map((n) => ({
      ...n,
      data: { ...n.data, dropOff: dropOff.get(n.id) },
    }));
    return { ...built, nodes };
  }, [flow, problems, warnings, dropOff]);
  // The node being dragged, where the pointer has it; the flow learns its place on the drop.
  const [dragged, setDragged] = useState<{ id: string; x: number; y: number } | null>(null);
  // The same, at once: the drop can come before React has drawn the last move.
  const lastMove = useRef<{ id: string; x: number; y: number } | null>(null);
  const previous = useRef(new Map<string, StateNodeType>());
  const instance = useRef<ReactFlowInstance<StateNodeType, Edge> | null>(null);
  const nodes = useMemo(() => {
    const next = new Map<string, StateNodeType>();
    const list = graph.nodes.map((shown) => {
      const node =
        dragged?.id === shown.id ? { ...shown, position: { x: dragged.x, y: dragged.y } } : shown;
      const isSelected = node.id === selected;
      const old = previous.current.get(node.id);
      const kept: StateNodeType =
        old && sameNode(old, node, isSelected)
          ? old
          : {
              ...node,
              selected: isSelected,
              ariaLabel: `State ${node.id}`,
              // Sizes before measuring: states off screen are never measured
              // (onlyRenderVisibleElements), and the minimap draws them from these.
              width: NODE_WIDTH,
              initialHeight: NODE_HEIGHT,
            };
      next.set(node.id, kept);
      return kept;
    });
    previous.current = next;
    return list;
  }, [graph, selected, dragged]);
  const previousEdges = useRef(new Map<string, Edge>());
  const edges = useMemo(() => {
    const next = new Map<string, Edge>();
    const list = graph.edges.map((e): Edge => {
      const old = previousEdges.current.get(e.id);
      const kept: Edge =
        old && old.source === e.source && old.target === e.target
          ? old
          : {
              id: e.id,
              source: e.source,
              target: e.target,
              // A wait's on_fail takes a curve, apart from the transitions' steps.
              type: e.kind === 'on_fail' ? 'default' : 'smoothstep',
              style: EDGE_STYLE[e.kind],
              markerEnd: { type: MarkerType.ArrowClosed },
            };
      next.set(e.id, kept);
      return kept;
    });
    previousEdges.current = next;
    return list;
  }, [graph]);
  // The labels are drawn apart from the edges, placed together so that none covers another.
  const labels = useMemo(
    () =>
      graph.edges.flatMap((e): LabelledEdge[] =>
        e.label === undefined
          ? []
          : [
              {
                id: e.id,
                source: e.source,
                target: e.target,
                label: e.label,
                curve: e.kind === 'on_fail',
                colour: EDGE_COLOUR[e.kind],
              },
            ],
      ),
    [graph],
  );
  // Computed once per mount (the canvas is remounted per flow shown): React Flow reads it at start.
  const [fitViewOptions] = useState<FitViewOptions>(() => {
    if (graph.nodes.length <= FIT_ALL_UP_TO_STATES) return { padding: 0.1, maxZoom: 1 };
    const top = Math.min(...graph.nodes.map((n) => n.position.y));
    const first = graph.nodes.filter((n) => n.position.y < top + FIRST_ROWS_PX);
    return { nodes: first.map((n) => ({ id: n.id })), padding: 0.1, minZoom: 0.5, maxZoom: 1 };
  });
  const onNodeClick: NodeMouseHandler<StateNodeType> = (_event, node) => onSelect(node.id);
  return (
    <div
      className="flow-canvas"
      role="region"
      aria-label="Flow graph (the state list is its text alternative)"
    >
      <ReactFlow<StateNodeType, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodeClick={onNodeClick}
        onPaneClick={() => onSelect(null)}
        nodesDraggable={onMove !== undefined}
        onNodesChange={(changes) => {
          for (const change of changes) {
            if (change.type === 'position' && change.position) {
              lastMove.current = { id: change.id, ...change.position };
              setDragged(lastMove.current);
            }
          }
        }}
        onNodeDragStop={(_event, node) => {
          const last = lastMove.current;
          onMove?.(node.id, last?.id === node.id ? last : node.position);
          lastMove.current = null;
          setDragged(null);
        }}
        onInit={(flow) => {
          instance.current = flow;
        }}
        nodesConnectable={onConnect !== undefined}
        onConnect={(c) => onConnect?.(c.source, c.target)}
        onConnectEnd={(event, state) => {
          // On a handle, onConnect has it. Elsewhere on a state (its body, not only its small
          // handle): that state. On empty space: a new state, which the drag leads to.
          if (state.isValid || !state.fromNode) return;
          const to = stateUnder(event);
          if (to !== null) {
            if (to !== state.fromNode.id) onConnect?.(state.fromNode.id, to);
            return;
          }
          const point = 'changedTouches' in event ? event.changedTouches[0] : event;
          const drop =
            point && instance.current?.screenToFlowPosition({ x: point.clientX, y: point.clientY });
          // The new state's top centre where the drag ended.
          onConnect?.(state.fromNode.id, null, drop && { x: drop.x - NODE_WIDTH / 2, y: drop.y });
        }}
        nodesFocusable={false}
        edgesFocusable={false}
        onlyRenderVisibleElements
        fitView
        fitViewOptions={fitViewOptions}
        minZoom={0.05}
        proOptions={{ hideAttribution: false }}
      >
        <Background />
        <EdgeLabels edges={labels} />
        <FollowSelection selected={selected} states={graph.nodes.length} />
        <Controls showInteractive={false} fitViewOptions={FIT_BUTTON} />
        {graph.nodes.length > MINIMAP_FROM_STATES && (
          <MiniMap pannable zoomable nodeColor="#64748b" ariaLabel="Minimap of the flow" />
        )}
      </ReactFlow>
    </div>
  );
}
