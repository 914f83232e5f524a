/**
 * The flow as a graph: one node per state, one edge per way out (`next`, each transition, a
 * wait's `on_fail`), laid out in layers. Pure and shaped like React Flow's nodes and edges, so
 * the canvas passes them on as they are and tests need no browser.
 */
import { conditionLabel } from './condition-text.ts';
import { isRecord, type FlowState } from './flow-types.ts';
import { layeredLayout, type LayoutOptions } from './layered-layout.ts';
import { stateSummary } from './state-summary.ts';

export type EdgeKind = 'next' | 'transition' | 'on_fail';

export interface StateNodeData extends Record<string, unknown> {
  name: string;
  lines: string[];
  isStart: boolean;
  problems: number;
  warnings: number;
  /** The state's drop-off when the canvas shows it (drop-off.tsx). */
  dropOff?: { entered: number; abandoned: number; reasks: number } | undefined;
}

export interface GraphNode {
  id: string;
  type: 'state';
  position: { x: number; y: number };
  data: StateNodeData;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
  kind: EdgeKind;
}

export interface FlowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The states of a possibly invalid flow: entries whose value is an object. */
export function flowStates(flow: unknown): [string, FlowState][] {
  if (!isRecord(flow) || !isRecord(flow.states)) return [];
  return Object.entries(flow.states).filter((entry): entry is [string, FlowState] =>
    isRecord(entry[1]),
  );
}

/** The ways out of one state, as edges (targets may name no state; the caller filters). */
export function stateEdges(name: string, state: FlowState): GraphEdge[] {
  const edges: GraphEdge[] = [];
  if (typeof state.next === 'string') {
    edges.push({ id: `${name}→next`, source: name, target: state.next, kind: 'next' });
  }
  const transitions: unknown[] = Array.isArray(state.transitions) ? state.transitions : [];
  transitions.forEach((t, i) => {
    if (!isRecord(t) || typeof t.to !== 'string') return;
    edges.push({
      id: `${name}→t${i}`,
      source: name,
      target: t.to,
      label: conditionLabel(state, i),
      kind: 'transition',
    });
  });
  if (isRecord(state.wait) && typeof state.wait.on_fail === 'string') {
    edges.push({
      id: `${name}→on_fail`,
      source: name,
      target: state.wait.on_fail,
      label: 'on fail',
      kind: 'on_fail',
    });
  }
  return edges;
}

/**
 * The states in reading order: breadth-first from the start along each state's ways out (in their
 * order), then the states not reached, by name. It does not depend on the order of the flow's
 * keys, which Postgres does not keep (jsonb), so a saved flow reads in the same order.
 */
export function stateOrder(flow: unknown): string[] {
  const states = new Map(flowStates(flow));
  const start = isRecord(flow) && typeof flow.start === 'string' ? flow.start : undefined;
  const order: string[] = [];
  const seen = new Set<string>();
  const queue = start !== undefined && states.has(start) ? [start] : [];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (seen.has(name)) continue;
    seen.add(name);
    order.push(name);
    for (const edge of stateEdges(name, states.get(name)!)) {
      if (states.has(edge.target) && !seen.has(edge.target)) queue.push(edge.target);
    }
  }
  const rest = [...states.keys()].filter((name) => !seen.has(name)).sort();
  return [...order, ...rest];
}

/** The places the operator gave states by dragging (`flow.layout`), those that are numbers. */
export function placedStates(flow: unknown): Map<string, { x: number; y: number }> {
  const placed = new Map<string, { x: number; y: number }>();
  const layout = isRecord(flow) && isRecord(flow.layout) ? flow.layout : {};
  for (const [name, point] of Object.entries(layout)) {
    if (isRecord(point) && typeof point.x === 'number' && typeof point.y === 'number')
      placed.set(name, { x: point.x, y: point.y });
  }
  return placed;
}

/**
 * Nodes and edges of `flow` (a `Flow`, or any JSON: a draft may be invalid, and malformed parts
 * are skipped), positioned by `layeredLayout`, except the states the operator placed
 * (`flow.layout`). `problems` and `warnings` count findings per state name.
 */
export function flowToGraph(
  flow: unknown,
  problems: ReadonlyMap<string | null, readonly unknown[]> = new Map(),
  warnings: ReadonlyMap<string | null, readonly unknown[]> = new Map(),
  layout: LayoutOptions = {},
): FlowGraph {
  const states = flowStates(flow);
  const names = new Set(states.map(([name]) => name));
  const start = isRecord(flow) && typeof flow.start === 'string' ? flow.start : '';
  const edges = states
    .flatMap(([name, state]) => stateEdges(name, state))
    .filter((edge) => names.has(edge.target));
  const positions = layeredLayout(
    [...names],
    edges.map((e) => [e.source, e.target] as const),
    [start],
    layout,
  );
  const placed = placedStates(flow);
  const nodes = states.map(([name, state]): GraphNode => ({
    id: name,
    type: 'state',
    position: placed.get(name) ?? positions.get(name) ?? { x: 0, y: 0 },
    data: {
      name,
      lines: stateSummary(state),
      isStart: name === start,
      problems: problems.get(name)?.length ?? 0,
      warnings: warnings.get(name)?.length ?? 0,
    },
  }));
  return { nodes, edges };
}
