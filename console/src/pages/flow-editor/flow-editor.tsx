/**
 * The flow editor: the state list and findings on the left, the graph or the JSON in the middle,
 * the selected state (or the flow's settings, or the versions) on the right, and the draft and
 * publish bar on top. A published version can be opened read-only in the same views.
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DiscardDraftButton } from './discard-draft-button.tsx';
import type { ApiError } from '../../api/api-error.ts';
import type { BotFlow } from '../../api/types.ts';
import { getVersion } from './flow-api.ts';
import { FlowCanvas } from './flow-canvas.tsx';
import {
  addState,
  connect,
  deleteState,
  duplicateState,
  freeStateName,
  placeState,
  renameState,
  replaceState,
} from './flow-edits.ts';
import { FlowSettings } from './flow-settings.tsx';
import { isRecord, type Flow, type FlowState } from './flow-types.ts';
import { flowVariables } from './condition-rules.ts';
import { EditorContext, type EditorContextValue } from './editor-context.ts';
import { problemsByPointer, problemsByState } from './problem-location.ts';
import { ProblemList } from './problem-list.tsx';
import { PublishBar } from './publish-bar.tsx';
import { TestsPanel } from '../conversation-tests/tests-panel.tsx';
import { StateList } from './state-list.tsx';
import { StatePanel } from './state-panel.tsx';
import { TestChat } from '../test-chat/test-chat.tsx';
import { useEditorKeys } from './use-editor-keys.ts';
import { DropOffSelect, useDropOff } from './drop-off.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { useFlowDocument } from './use-flow-document.ts';
import { useMay } from '../../api/permissions.ts';
import { useBot } from '../../api/bots.ts';
import { useValidation } from './use-validation.ts';
import { VersionBanner } from './version-banner.tsx';
import { VersionsPanel } from './versions-panel.tsx';

interface FlowEditorProps {
  appId: string;
  botFlow: BotFlow;
}

const NO_FINDINGS = new Map();

// CodeMirror is a third of the editor's bytes; it loads when the JSON tab is first opened.
const JsonTab = lazy(() => import('./json-tab.tsx').then((m) => ({ default: m.JsonTab })));

/** The value as a flow when it has the shape the views need (a `states` object). */
function asFlow(value: unknown): Flow | null {
  return isRecord(value) && isRecord(value.states) ? (value as unknown as Flow) : null;
}

export function FlowEditor({ appId, botFlow }: FlowEditorProps) {
  const doc = useFlowDocument(
    botFlow.draft?.flow ?? botFlow.published.flow,
    botFlow.draft?.flow ?? botFlow.published.flow,
  );
  const may = useMay();
  const bot = useBot(appId);
  // A viewer reads the flow; builders and owners edit it (the permission table, docs/accounts.md).
  const mayEdit = may('PUT /v2/bots/:app_id/flow/draft');
  const validation = useValidation(
    doc.text,
    doc.parseError === null,
    may('POST /v2/flows/validate'),
  );
  // Whether the server holds a draft: as loaded, then as this editor saved or discarded it.
  const [hasDraft, setHasDraft] = useState(botFlow.draft !== null);
  const [selected, setSelected] = useState<string | null>(null);
  const [tab, setTab] = useState<'graph' | 'json'>('graph');
  // The right-hand side shows the versions, the tests, or the selected state (or the flow).
  const [panel, setPanel] = useState<'versions' | 'tests' | null>(null);
  const toggle = (which: 'versions' | 'tests') => setPanel((p) => (p === which ? null : which));
  // The test chat tries the saved draft (or the published version) beside the editor.
  const [showChat, setShowChat] = useState(false);
  const [viewing, setViewing] = useState<number | null>(null);
  const [focusPointer, setFocusPointer] = useState<string | null>(null);
  const dropOff = useDropOff(appId);

  const versionQuery = useQuery({
    queryKey: ['flow-version', appId, viewing],
    queryFn: () => getVersion(appId, viewing ?? 0),
    enabled: viewing !== null,
  });
  const readOnly = !mayEdit || viewing !== null || doc.parseError !== null;
  const shownValue = viewing !== null ? versionQuery.data?.flow : doc.value;
  const flow = asFlow(shownValue);
  const findings = viewing === null ? validation : { problems: [], warnings: [] };

  const problemStates = useMemo(() => problemsByState(findings.problems), [findings.problems]);
  const warningStates = useMemo(() => problemsByState(findings.warnings), [findings.warnings]);
  const context = useMemo<EditorContextValue>(
    () => ({
      problems: viewing === null ? problemsByPointer(validation.problems) : NO_FINDINGS,
      warnings: viewing === null ? problemsByPointer(validation.warnings) : NO_FINDINGS,
      readOnly,
      variables: flow ? flowVariables(flow) : [],
    }),
    [validation.problems, validation.warnings, viewing, readOnly, flow],
  );

  const edit = useCallback(
    (change: (flow: Flow) => Flow) => {
      const current = asFlow(doc.value);
      if (current) doc.setValue(change(current));
    },
    [doc],
  );

  const selectedExists = flow !== null && selected !== null && Object.hasOwn(flow.states, selected);
  const editable = mayEdit && viewing === null;
  const { undo, redo } = doc;
  // A state copied with Ctrl+C, pasted (as a copy under a free name) with Ctrl+V.
  const copied = useRef<{ name: string; state: FlowState } | null>(null);
  const [deleteRequest, setDeleteRequest] = useState(0);
  const pasteCopy = (name: string, state?: FlowState) => {
    if (!flow) return;
    const copy = freeStateName(flow, `${name.slice(0, 50)}_copy`);
    edit((f) => duplicateState(f, name, copy, state));
    setSelected(copy);
  };
  const current = selectedExists && selected !== null ? selected : null;
  useEditorKeys(editable, {
    undo,
    redo,
    ...(current !== null && flow
      ? {
          remove: () => setDeleteRequest((n) => n + 1),
          copy: () => {
            const state = flow.states[current];
            if (state) copied.current = { name: current, state: structuredClone(state) };
          },
          duplicate: () => pasteCopy(current),
        }
      : {}),
    paste: () => {
      if (copied.current) pasteCopy(copied.current.name, copied.current.state);
    },
  });

  // After a click on a finding, the field its pointer names gets the focus once it is rendered.
  useEffect(() => {
    if (focusPointer === null) return;
    const target = document.querySelector<HTMLElement>(
      `[data-pointer="${CSS.escape(focusPointer)}"]`,
    );
    (target ?? document.getElementById('state-heading'))?.focus();
    setFocusPointer(null);
  }, [focusPointer]);

  const findingsOf = (name: string) => [
    ...(problemStates.get(name) ?? []),
    ...(warningStates.get(name) ?? []),
  ];

  return (
    <EditorContext.Provider value={context}>
      <div className="flow-editor">
        <header className="editor-header">
          <h1>Flow of {bot.data?.name ?? 'bot'}</h1>
          {mayEdit && (
            <div className="editor-actions" data-route="PUT /v2/bots/:app_id/flow/draft">
              <PublishBar
                appId={appId}
                value={doc.value}
                parses={doc.parseError === null}
                dirty={doc.dirty}
                hasDraft={hasDraft}
                validation={validation}
                publishedVersion={botFlow.published.version}
                onSaved={(saved) => {
                  doc.markSaved(saved);
                  setHasDraft(true);
                }}
                onPublished={() => setHasDraft(false)}
              />
              <DiscardDraftButton
                appId={appId}
                enabled={viewing === null && (hasDraft || doc.dirty)}
                onDiscarded={() => {
                  doc.setValue(botFlow.published.flow);
                  doc.markSaved(botFlow.published.flow);
                  setHasDraft(false);
                  setSelected(null);
                }}
              />
            </div>
          )}
          <button
            type="button"
            aria-expanded={panel === 'versions'}
            onClick={() => toggle('versions')}
          >
            Versions
          </button>
          {may('GET /v2/bots/:app_id/tests') && (
            <button
              type="button"
              aria-expanded={panel === 'tests'}
              data-route="GET /v2/bots/:app_id/tests"
              onClick={() => toggle('tests')}
            >
              Tests
            </button>
          )}
          {may('POST /v2/bots/:app_id/test-chats') && (
            <button
              type="button"
              aria-expanded={showChat}
              data-route="POST /v2/bots/:app_id/test-chats"
              onClick={() => setShowChat((v) => !v)}
            >
              Test chat
            </button>
          )}
        </header>
        {viewing !== null && versionQuery.data && (
          <VersionBanner
            appId={appId}
            version={versionQuery.data}
            onBack={() => setViewing(null)}
          />
        )}
        {viewing !== null && versionQuery.isError && (
          <div role="alert" className="problem-text">
            Could not load version {viewing}: {(versionQuery.error as ApiError).message}{' '}
            <button type="button" onClick={() => setViewing(null)}>
              Back to the draft
            </button>
          </div>
        )}
        <div className="editor-body">
          <aside className="editor-left" aria-label="States and findings">
            {flow && (
              <StateList
                flow={flow}
                selected={selectedExists ? selected : null}
                problemCounts={problemStates}
                readOnly={readOnly}
                onSelect={setSelected}
                suggestName={() => freeStateName(flow)}
                onAdd={(name) => {
                  edit((f) => addState(f, name));
                  setSelected(name);
                }}
              />
            )}
            <ProblemList
              problems={findings.problems}
              warnings={findings.warnings}
              onPick={(state, path) => {
                setTab('graph');
                setSelected(state);
                setFocusPointer(path);
              }}
            />
          </aside>
          <div className="editor-main">
            <div className="canvas-bar">
              <div role="tablist" aria-label="View">
                <button
                  type="button"
                  role="tab"
                  id="tab-graph"
                  aria-controls="panel-graph"
                  aria-selected={tab === 'graph'}
                  onClick={() => setTab('graph')}
                >
                  Graph
                </button>
                <button
                  type="button"
                  role="tab"
                  id="tab-json"
                  aria-controls="panel-json"
                  aria-selected={tab === 'json'}
                  onClick={() => setTab('json')}
                >
                  JSON
                </button>
              </div>
              {dropOff.allowed && tab === 'graph' && (
                <DropOffSelect days={dropOff.days} onChange={dropOff.setDays} />
              )}
              {dropOff.error && (
                <ErrorAlert what="Could not load the drop-off." error={dropOff.error} />
              )}
              {mayEdit && (
                <div
                  role="toolbar"
                  aria-label="Edit"
                  className="edit-tools"
                  data-route="PUT /v2/bots/:app_id/flow/draft"
                >
                  <button
                    type="button"
                    onClick={undo}
                    disabled={!editable || !doc.canUndo}
                    aria-keyshortcuts="Control+Z"
                    title="Undo the last edit (Ctrl+Z)"
                  >
                    Undo
                  </button>
                  <button
                    type="button"
                    onClick={redo}
                    disabled={!editable || !doc.canRedo}
                    aria-keyshortcuts="Control+Shift+Z"
                    title="Redo (Ctrl+Shift+Z)"
                  >
                    Redo
                  </button>
                </div>
              )}
            </div>
            <div
              role="tabpanel"
              id={`panel-${tab}`}
              aria-labelledby={`tab-${tab}`}
              className="tab-panel"
            >
              {tab === 'graph' &&
                (flow ? (
                  <FlowCanvas
                    key={viewing ?? 'draft'}
                    flow={flow}
                    problems={problemStates}
                    warnings={warningStates}
                    selected={selectedExists ? selected : null}
                    onSelect={setSelected}
                    dropOff={dropOff.stats}
                    {...(editable
                      ? {
                          onMove: (name: string, at: { x: number; y: number }) =>
                            edit((f) => placeState(f, name, at)),
                          onConnect: (
                            from: string,
                            to: string | null,
                            at?: { x: number; y: number },
                          ) => {
                            const target = to ?? freeStateName(flow);
                            edit((f) => {
                              if (to !== null) return connect(f, from, target);
                              const made = connect(addState(f, target), from, target);
                              return at ? placeState(made, target, at) : made;
                            });
                            setSelected(to === null ? target : from);
                          },
                        }
                      : {})}
                  />
                ) : (
                  <p role="alert" className="problem-text">
                    The JSON is not a flow (it needs a "states" object); fix it in the JSON tab.
                  </p>
                ))}
              {tab === 'json' && (
                <Suspense fallback={<p role="status">Loading the JSON editor…</p>}>
                  <JsonTab
                    key={viewing ?? 'draft'}
                    text={viewing !== null ? JSON.stringify(shownValue ?? null, null, 2) : doc.text}
                    parseError={viewing !== null ? null : doc.parseError}
                    readOnly={!mayEdit || viewing !== null}
                    onChange={doc.setText}
                  />
                </Suspense>
              )}
            </div>
          </div>
          <aside className="editor-right" aria-label="Details">
            {panel === 'tests' ? (
              <TestsPanel appId={appId} onClose={() => setPanel(null)} />
            ) : panel === 'versions' ? (
              <VersionsPanel
                appId={appId}
                viewing={viewing}
                onView={setViewing}
                onClose={() => setPanel(null)}
              />
            ) : flow && selectedExists && selected !== null ? (
              <StatePanel
                flow={flow}
                name={selected}
                findings={findingsOf(selected)}
                onChange={(state) => edit((f) => replaceState(f, selected, state))}
                onRename={(to) => {
                  edit((f) => renameState(f, selected, to));
                  setSelected(to);
                }}
                onDelete={() => {
                  edit((f) => deleteState(f, selected));
                  setSelected(null);
                }}
                onDuplicate={() => pasteCopy(selected)}
                deleteRequest={deleteRequest}
              />
            ) : (
              flow && (
                <fieldset disabled={readOnly} className="bare">
                  <FlowSettings appId={appId} flow={flow} onChange={(f) => edit(() => f)} />
                </fieldset>
              )
            )}
            {doc.parseError !== null && viewing === null && (
              <p className="problem-text">
                The JSON does not parse: forms are read-only until it does.
              </p>
            )}
          </aside>
          {showChat && (
            <aside className="editor-chat" aria-label="Test chat">
              <TestChat appId={appId} />
            </aside>
          )}
        </div>
      </div>
    </EditorContext.Provider>
  );
}
