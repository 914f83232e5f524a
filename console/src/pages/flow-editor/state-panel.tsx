/**
 * The side panel for the selected state: its name (rename updates every reference), its
 * findings, actions, wait and way out, and deleting it (after a confirmation naming what points
 * at it).
 */
import { useContext, useEffect, useRef, useState } from 'react';
import { ActionsEditor } from './actions-editor.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ExitEditor } from './exit-editor.tsx';
import { referencesTo, stateNameProblem, type StateReference } from './flow-edits.ts';
import type { Problem } from '../../api/types.ts';
import { type Flow, type FlowState, omit } from './flow-types.ts';
import { EditorContext } from './editor-context.ts';
import { followRenamedOptions, waitForChoice } from './option-edits.ts';
import { pointerLabel, statePointer } from './problem-location.ts';
import { WaitEditor } from './wait-editor.tsx';

interface StatePanelProps {
  flow: Flow;
  name: string;
  findings: Problem[];
  onChange: (state: FlowState) => void;
  onRename: (to: string) => void;
  onDelete: () => void;
  /** A copy of the state under a free name (also Ctrl+D, or Ctrl+C then Ctrl+V). */
  onDuplicate: () => void;
  /** Bumped to ask for the delete confirmation (the Delete key on the canvas). */
  deleteRequest?: number;
}

function referenceText(ref: StateReference): string {
  if (ref.kind === 'start') return 'the flow starts here';
  if (ref.kind === 'transition') return `${ref.from} (transition ${(ref.index ?? 0) + 1})`;
  return `${ref.from} (${ref.kind === 'next' ? 'next' : 'on fail'})`;
}

export function StatePanel({
  flow,
  name,
  findings,
  onChange,
  onRename,
  onDelete,
  onDuplicate,
  deleteRequest,
}: StatePanelProps) {
  const { readOnly } = useContext(EditorContext);
  const [draftName, setDraftName] = useState(name);
  const [shownName, setShownName] = useState(name);
  const [confirming, setConfirming] = useState(false);
  if (shownName !== name) {
    setShownName(name);
    setDraftName(name);
  }
  const state = flow.states[name] ?? {};
  const pointer = statePointer(name);
  const names = Object.keys(flow.states);
  const nameProblem = draftName === name ? null : stateNameProblem(flow, draftName, name);
  const refs = confirming ? referencesTo(flow, name).filter((r) => r.from !== name) : [];
  const isStart = flow.start === name;
  // The Delete key asks as the button does (never for the start state, which cannot go).
  const asked = useRef(deleteRequest);
  useEffect(() => {
    if (deleteRequest === asked.current) return;
    asked.current = deleteRequest;
    if (!isStart) setConfirming(true);
  }, [deleteRequest, isStart]);
  return (
    <section className="state-panel" aria-labelledby="state-heading">
      <h2 id="state-heading">State {name}</h2>
      <fieldset disabled={readOnly} className="bare">
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (nameProblem === null && draftName !== name) onRename(draftName);
          }}
        >
          <div className="field">
            <label htmlFor="state-name">Name</label>
            <input
              id="state-name"
              value={draftName}
              aria-invalid={nameProblem !== null}
              aria-describedby="state-name-note"
              onChange={(e) => setDraftName(e.target.value)}
            />
            <div id="state-name-note" className="field-note">
              {nameProblem ?? 'Renaming updates every transition that points here.'}
            </div>
          </div>
          <button type="submit" disabled={nameProblem !== null || draftName === name}>
            Rename
          </button>
        </form>
        {findings.length > 0 && (
          <ul className="findings" aria-label={`Findings in state ${name}`}>
            {findings.map((f, i) => (
              <li key={i}>
                <strong>{pointerLabel(f.path)}</strong> {f.message}
              </li>
            ))}
          </ul>
        )}
        <ActionsEditor
          pointer={`${pointer}/actions`}
          stateNames={names}
          start={flow.start}
          actions={Array.isArray(state.actions) ? state.actions : []}
          onChange={(actions) => {
            const rest = omit(state, 'actions');
            // Options just offered: the state waits for the choice; an option's id changed: its
            // transitions follow (option-edits.ts).
            const next = actions.length > 0 ? { ...rest, actions } : rest;
            onChange(followRenamedOptions(state, waitForChoice(state, next)));
          }}
        />
        <WaitEditor
          pointer={`${pointer}/wait`}
          wait={state.wait}
          stateNames={names}
          onChange={(wait) => {
            const rest = omit(state, 'wait');
            onChange(wait ? { ...rest, wait } : rest);
          }}
        />
        <ExitEditor
          pointer={pointer}
          state={state}
          stateNames={names}
          intents={(Array.isArray(flow.intents) ? flow.intents : []).map((i) => i.name)}
          onChange={onChange}
        />
        <p>
          <button type="button" onClick={onDuplicate} aria-keyshortcuts="Control+D">
            Duplicate state {name}
          </button>{' '}
          <button
            type="button"
            className="danger"
            disabled={isStart}
            aria-describedby={isStart ? 'delete-note' : undefined}
            onClick={() => setConfirming(true)}
          >
            Delete state {name}
          </button>
          {isStart && (
            <span id="delete-note" className="muted">
              {' '}
              The flow starts here: choose another start state first.
            </span>
          )}
        </p>
      </fieldset>
      {confirming && (
        <ConfirmDialog
          title={`Delete state ${name}?`}
          confirmLabel={`Delete ${name}`}
          danger
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            onDelete();
          }}
        >
          {refs.length === 0 ? (
            <p>Nothing points at this state.</p>
          ) : (
            <>
              <p>
                These point at it and will be removed (a state left without a way out is then
                reported as a dead end):
              </p>
              <ul>
                {refs.map((r, i) => (
                  <li key={i}>{referenceText(r)}</li>
                ))}
              </ul>
            </>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
