/** The actions of a state, in order: each in its own box, movable and removable; add at the end. */
import { useState } from 'react';
import { ACTION_KINDS, actionKind, newAction, type ActionKind } from './action-kinds.ts';
import { AnswerEditor } from './answer-editor.tsx';
import type { Action } from './flow-types.ts';
import { HandoffEditor } from './handoff-editor.tsx';
import { HttpEditor } from './http-editor.tsx';
import { JsonValueField } from './json-value-field.tsx';
import { LanguageEditor } from './language-editor.tsx';
import { LlmEditor } from './llm-editor.tsx';
import { SendEditor } from './send-editor.tsx';
import { SetEditor } from './set-editor.tsx';

interface ActionsEditorProps {
  pointer: string;
  actions: Action[];
  onChange: (actions: Action[]) => void;
  /** The flow's states (a handoff's fallback is one) and where it starts (the default one). */
  stateNames: string[];
  start: string;
}

function ActionBody({
  pointer,
  action,
  onChange,
  stateNames,
}: {
  pointer: string;
  action: Action;
  onChange: (a: Action) => void;
  stateNames: string[];
}) {
  if ('send' in action) {
    return (
      <SendEditor
        pointer={`${pointer}/send`}
        send={action.send}
        onChange={(send) => onChange({ send })}
      />
    );
  }
  if ('set' in action) {
    return (
      <SetEditor
        pointer={`${pointer}/set`}
        values={action.set}
        onChange={(set) => onChange({ set })}
      />
    );
  }
  if ('http' in action) {
    return (
      <HttpEditor
        pointer={`${pointer}/http`}
        http={action.http}
        onChange={(http) => onChange({ http })}
      />
    );
  }
  if ('answer_from' in action) {
    return (
      <AnswerEditor
        pointer={`${pointer}/answer_from`}
        answer={action.answer_from}
        onChange={(answer_from) => onChange({ answer_from })}
      />
    );
  }
  if ('handoff' in action) {
    return (
      <HandoffEditor
        pointer={`${pointer}/handoff`}
        stateNames={stateNames}
        handoff={action.handoff}
        onChange={(handoff) => onChange({ handoff })}
      />
    );
  }
  if ('llm' in action) {
    return (
      <LlmEditor
        pointer={`${pointer}/llm`}
        llm={action.llm}
        onChange={(llm) => onChange({ llm })}
      />
    );
  }
  if ('choose_language' in action) {
    return (
      <LanguageEditor
        pointer={`${pointer}/choose_language`}
        choose={action.choose_language}
        onChange={(choose_language) => onChange({ choose_language })}
      />
    );
  }
  return (
    <JsonValueField
      label="Action (JSON)"
      pointer={pointer}
      value={action}
      onChange={(value) => onChange(value as Action)}
    />
  );
}

export function ActionsEditor({
  pointer,
  actions,
  onChange,
  stateNames,
  start,
}: ActionsEditorProps) {
  const [kind, setKind] = useState<ActionKind>('send');
  const move = (i: number, by: number): void => {
    const next = [...actions];
    const [moved] = next.splice(i, 1);
    if (moved) next.splice(i + by, 0, moved);
    onChange(next);
  };
  return (
    <section aria-labelledby="actions-heading">
      <h3 id="actions-heading">Actions</h3>
      {actions.length === 0 && (
        <p className="muted">No actions: the state only waits or moves on.</p>
      )}
      {actions.map((action, i) => {
        const k = actionKind(action);
        const label = ACTION_KINDS.find((a) => a.kind === k)?.label ?? 'Unknown action';
        const base = `${pointer}/${i}`;
        return (
          <fieldset className="action" key={i}>
            <legend>
              {i + 1}. {label}
            </legend>
            <div className="action-tools">
              <button type="button" disabled={i === 0} onClick={() => move(i, -1)}>
                Move action {i + 1} up
              </button>
              <button type="button" disabled={i === actions.length - 1} onClick={() => move(i, 1)}>
                Move action {i + 1} down
              </button>
              <button type="button" onClick={() => onChange(actions.filter((_, j) => j !== i))}>
                Remove action {i + 1}
              </button>
            </div>
            {k === null ? (
              <JsonValueField
                label={`Action ${i + 1} (JSON)`}
                pointer={base}
                value={action}
                onChange={(value) =>
                  onChange(actions.map((a, j) => (j === i ? (value as Action) : a)))
                }
              />
            ) : (
              <ActionBody
                pointer={base}
                stateNames={stateNames}
                action={action}
                onChange={(next) => onChange(actions.map((a, j) => (j === i ? next : a)))}
              />
            )}
          </fieldset>
        );
      })}
      <div className="row">
        <label>
          New action{' '}
          <select value={kind} onChange={(e) => setKind(e.target.value as ActionKind)}>
            {ACTION_KINDS.map((a) => (
              <option key={a.kind} value={a.kind}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => onChange([...actions, newAction(kind, start)])}>
          Add action
        </button>
      </div>
    </section>
  );
}
