/**
 * The states as a list: the graph's text alternative and its keyboard path. Arrow keys move
 * between states, Enter or a click selects one; each entry says whether it is the start and how
 * many problems it has. A search above narrows it to the states whose name or texts hold the
 * words (Enter selects the first). A form below adds a state.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import { stateNameProblem } from './flow-edits.ts';
import { findStates } from './state-search.ts';
import type { Flow } from './flow-types.ts';

interface StateListProps {
  flow: Flow;
  selected: string | null;
  problemCounts: ReadonlyMap<string | null, readonly unknown[]>;
  readOnly: boolean;
  onSelect: (name: string) => void;
  onAdd: (name: string) => void;
  suggestName: () => string;
}

export function StateList({
  flow,
  selected,
  problemCounts,
  readOnly,
  onSelect,
  onAdd,
  suggestName,
}: StateListProps) {
  const [query, setQuery] = useState('');
  const all = Object.keys(flow.states).length;
  const names = findStates(flow, query);
  const listRef = useRef<HTMLUListElement>(null);
  const [newName, setNewName] = useState('');
  const problem = newName === '' ? null : stateNameProblem(flow, newName);
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, i: number): void => {
    const to =
      e.key === 'ArrowDown'
        ? i + 1
        : e.key === 'ArrowUp'
          ? i - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? names.length - 1
              : null;
    if (to === null) return;
    e.preventDefault();
    const buttons = listRef.current?.querySelectorAll('button');
    buttons?.[Math.max(0, Math.min(names.length - 1, to))]?.focus();
  };
  return (
    <nav aria-labelledby="states-heading" className="state-list">
      <h2 id="states-heading">
        States ({names.length === all ? all : `${names.length} of ${all}`})
      </h2>
      <div role="search" className="state-search">
        <label htmlFor="state-search">Find a state or text</label>
        <input
          id="state-search"
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || names[0] === undefined) return;
            e.preventDefault();
            onSelect(names[0]);
          }}
        />
      </div>
      {names.length === 0 && <p className="muted">No state holds “{query.trim()}”.</p>}
      <ul ref={listRef}>
        {names.map((name, i) => {
          const count = problemCounts.get(name)?.length ?? 0;
          return (
            <li key={name}>
              <button
                type="button"
                aria-current={selected === name ? 'true' : undefined}
                onClick={() => onSelect(name)}
                onKeyDown={(e) => onKeyDown(e, i)}
              >
                {name}
                {flow.start === name && <span className="tag"> start</span>}
                {count > 0 && (
                  <span className="tag tag-problem">
                    {' '}
                    {count} problem{count === 1 ? '' : 's'}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
      {!readOnly && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const name = newName === '' ? suggestName() : newName;
            if (stateNameProblem(flow, name) !== null) return;
            onAdd(name);
            setNewName('');
          }}
        >
          <label htmlFor="new-state-name">New state name</label>
          <input
            id="new-state-name"
            value={newName}
            placeholder={suggestName()}
            aria-invalid={problem !== null}
            aria-describedby={problem ? 'new-state-note' : undefined}
            onChange={(e) => setNewName(e.target.value)}
          />
          {problem && (
            <div id="new-state-note" className="field-note problem-text">
              {problem}
            </div>
          )}
          <button type="submit" disabled={problem !== null}>
            Add state
          </button>
        </form>
      )}
    </nav>
  );
}
