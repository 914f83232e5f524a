/** A state in the graph: its name, start mark, problem count and a few lines of what it does. */
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { StateNodeData } from './flow-graph.ts';
import { dropOffLine } from './drop-off.tsx';

export type StateNodeType = Node<StateNodeData, 'state'>;

function StateNodeView({ data, selected }: NodeProps<StateNodeType>) {
  const classes = ['state-node'];
  if (selected) classes.push('selected');
  if (data.problems > 0) classes.push('has-problems');
  else if (data.warnings > 0) classes.push('has-warnings');
  return (
    <div className={classes.join(' ')}>
      <Handle type="target" position={Position.Top} />
      <div className="state-node-title">
        {data.isStart && <span className="tag">start</span>}
        <span className="state-node-name">{data.name}</span>
        {data.problems > 0 && (
          <span className="tag tag-problem" title={`${data.problems} problems`}>
            ⚠ {data.problems}
          </span>
        )}
      </div>
      <ul>
        {data.lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      {data.dropOff && <DropOff {...dropOffLine(data.dropOff)} />}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

function DropOff({ text, high }: { text: string; high: boolean }) {
  return <p className={high ? 'state-node-stats high' : 'state-node-stats'}>{text}</p>;
}

/** Memoised: React Flow re-renders a node only when its data object changes. */
export const StateNode = memo(StateNodeView);
