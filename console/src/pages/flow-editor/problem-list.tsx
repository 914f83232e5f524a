/**
 * Every finding of the last validation, problems first; a click selects the state it is in and
 * focuses the field its pointer names.
 */
import type { Problem } from '../../api/types.ts';
import { pointerLabel, stateOfPointer } from './problem-location.ts';

interface ProblemListProps {
  problems: Problem[];
  warnings: Problem[];
  onPick: (state: string | null, path: string) => void;
}

export function ProblemList({ problems, warnings, onPick }: ProblemListProps) {
  if (problems.length === 0 && warnings.length === 0) return null;
  const item = (finding: Problem, kind: 'problem' | 'warning', i: number) => (
    <li key={`${kind}${i}`} className={kind}>
      <button type="button" onClick={() => onPick(stateOfPointer(finding.path), finding.path)}>
        <span className="visually-hidden">{kind}: </span>
        <strong>{pointerLabel(finding.path)}</strong> {finding.message}
      </button>
    </li>
  );
  return (
    <section aria-labelledby="problems-heading" className="problem-list">
      <h2 id="problems-heading">
        {problems.length} problem{problems.length === 1 ? '' : 's'}, {warnings.length} warning
        {warnings.length === 1 ? '' : 's'}
      </h2>
      <ul>
        {problems.map((p, i) => item(p, 'problem', i))}
        {warnings.map((w, i) => item(w, 'warning', i))}
      </ul>
    </section>
  );
}
