/** How a state is left: `next`, a list of transitions (first match wins), `end`, or nothing. */
import { ConditionEditor } from './condition-editor.tsx';
import { type FlowState, type Transition, omit } from './flow-types.ts';
import { Field, SelectField } from './field.tsx';

interface ExitEditorProps {
  pointer: string;
  state: FlowState;
  stateNames: string[];
  /** The names of the flow's intents, for conditions that test one. */
  intents: string[];
  onChange: (state: FlowState) => void;
}

type Exit = 'none' | 'next' | 'transitions' | 'end';

function exitOf(state: FlowState): Exit {
  if (state.end) return 'end';
  if (state.transitions) return 'transitions';
  if (state.next !== undefined) return 'next';
  return 'none';
}

export function ExitEditor({ pointer, state, stateNames, intents, onChange }: ExitEditorProps) {
  const exit = exitOf(state);
  const rest = omit(state, 'next', 'transitions', 'end');
  const first = stateNames[0] ?? '';
  const transitions = Array.isArray(state.transitions) ? state.transitions : [];
  const setTransitions = (list: Transition[]): void => onChange({ ...rest, transitions: list });
  const move = (i: number, by: number): void => {
    const list = [...transitions];
    const [moved] = list.splice(i, 1);
    if (moved) list.splice(i + by, 0, moved);
    setTransitions(list);
  };
  return (
    <section aria-labelledby="exit-heading">
      <h3 id="exit-heading">Then</h3>
      <Field label="Way out" pointer={`${pointer}/exit`}>
        {(control) => (
          <select
            {...control}
            value={exit}
            onChange={(e) => {
              const next = e.target.value as Exit;
              if (next === 'next') onChange({ ...rest, next: state.transitions?.[0]?.to ?? first });
              else if (next === 'transitions') {
                onChange({ ...rest, transitions: [{ to: state.next ?? first }] });
              } else if (next === 'end') onChange({ ...rest, end: true });
              else onChange(rest);
            }}
          >
            <option value="next">go on to a state</option>
            <option value="transitions">branch (first matching transition)</option>
            <option value="end">end the conversation</option>
            <option value="none">nothing</option>
          </select>
        )}
      </Field>
      {exit === 'next' && (
        <SelectField
          label="Next state"
          pointer={`${pointer}/next`}
          value={state.next}
          options={
            stateNames.includes(state.next ?? '') ? stateNames : [state.next ?? '', ...stateNames]
          }
          onChange={(next) => onChange({ ...rest, next })}
        />
      )}
      {exit === 'transitions' && (
        <ol className="transitions">
          {transitions.map((t, i) => {
            const base = `${pointer}/transitions/${i}`;
            const update = (patch: Partial<Transition>): void =>
              setTransitions(transitions.map((x, j) => (j === i ? { ...x, ...patch } : x)));
            return (
              <li key={i}>
                <ConditionEditor
                  pointer={`${base}/when`}
                  index={i}
                  state={state}
                  when={t.when}
                  intents={intents}
                  onChange={(when) => {
                    const keep = omit(t, 'when');
                    setTransitions(
                      transitions.map((x, j) =>
                        j === i ? (when === undefined ? keep : { when, ...keep }) : x,
                      ),
                    );
                  }}
                />
                <SelectField
                  label={`Transition ${i + 1} goes to`}
                  pointer={`${base}/to`}
                  value={t.to}
                  options={stateNames.includes(t.to) ? stateNames : [t.to, ...stateNames]}
                  onChange={(to) => update({ to })}
                />
                <div className="action-tools">
                  <button type="button" disabled={i === 0} onClick={() => move(i, -1)}>
                    Move transition {i + 1} up
                  </button>
                  <button
                    type="button"
                    disabled={i === transitions.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    Move transition {i + 1} down
                  </button>
                  <button
                    type="button"
                    onClick={() => setTransitions(transitions.filter((_, j) => j !== i))}
                  >
                    Remove transition {i + 1}
                  </button>
                </div>
              </li>
            );
          })}
          <li className="plain">
            <button type="button" onClick={() => setTransitions([...transitions, { to: first }])}>
              Add transition
            </button>
          </li>
        </ol>
      )}
    </section>
  );
}
