/**
 * The flow as a graph (React Flow): pan and zoom, a minimap for big flows, a click selects a
 * state. Nodes and edges are built once per flow or findings change, and a node whose content
 * did not change keeps its object, so React Flow leaves it alone.
 */
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  type Edge,
  type NodeMouseHandler,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useRef, type CSSProperties } from 'react';
import { flowToGraph, type GraphNode } from './flow-graph.ts';
import type { Problem } from './flow-types.ts';
import { StateNode, type StateNodeType } from './state-node.tsx';

const nodeTypes = { state: StateNode };

/** Flows with more states than this get a minimap. */
const MINIMAP_FROM_STATES = 12;

interface FlowCanvasProps {
  flow: unknown;
  problems: ReadonlyMap<string | null, Problem[]>;
  warnings: ReadonlyMap<string | null, Problem[]>;
  selected: string | null;
  onSelect: (name: string | null) => void;
}

function sameNode(a: StateNodeType, b: GraphNode, selected: boolean): boolean {
  return (
    a.selected === selected &&
    a.position.x === b.position.x &&
    a.position.y === b.position.y &&
    a.data.isStart === b.data.isStart &&
    a.data.problems === b.data.problems &&
    a.data.warnings === b.data.warnings &&
    a.data.lines.join('\n') === b.data.lines.join('\n')
  );
}

const EDGE_STYLE: Record<string, CSSProperties> = {
  next: { stroke: '#475569' },
  transition: { stroke: '#2563eb' },
  on_fail: { stroke: '#b91c1c', strokeDasharray: '6 4' },
};

export function FlowCanvas({ flow, problems, warnings, selected, onSelect }: FlowCanvasProps) {
  const graph = useMemo(() => flowToGraph(flow, problems, warnings), [flow, problems, warnings]);
  const previous = useRef(new Map<string, StateNodeType>());
  const nodes = useMemo(() => {
    const next = new Map<string, StateNodeType>();
    const list = graph.nodes.map((node) => {
      const isSelected = node.id === selected;
      const old = previous.current.get(node.id);
      const kept: StateNodeType =
        old && sameNode(old, node, isSelected)
          ? old
          : { ...node, selected: isSelected, ariaLabel: `State ${node.id}` };
      next.set(node.id, kept);
      return kept;
    });
    previous.current = next;
    return list;
  }, [graph, selected]);
  const edges = useMemo(
    () =>
      graph.edges.map((e): Edge => ({
        id: e.id,
        source: e.source,
        target: e.target,
        label: e.label,
        type: 'smoothstep',
        style: EDGE_STYLE[e.kind],
        markerEnd: { type: MarkerType.ArrowClosed },
        labelBgPadding: [4, 2],
        labelStyle: { fontSize: 11 },
      })),
    [graph],
  );
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
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        onlyRenderVisibleElements
        fitView
        minZoom={0.05}
        proOptions={{ hideAttribution: false }}
      >
        <Background />
        <Controls showInteractive={false} />
        {graph.nodes.length > MINIMAP_FROM_STATES && (
          <MiniMap pannable zoomable ariaLabel="Minimap of the flow" />
        )}
      </ReactFlow>
    </div>
  );
}
