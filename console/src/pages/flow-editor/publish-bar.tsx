/**
 * Save draft and Publish. Publishing saves unsaved edits first, asks the server how many
 * conversations wait in states the draft removes, and publishes after a confirmation. Publish is
 * disabled while validation reports problems (or has not answered).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import type { ApiError } from '../../api/api-error.ts';
import type { Impact } from '../../api/types.ts';
import { getImpact, publishDraft, saveDraft } from './flow-api.ts';
import { RunResults } from '../conversation-tests/run-results.tsx';
import type { TestRun } from '../../api/types.ts';
import { ImpactNote } from './impact-note.tsx';
import type { ValidationView } from './use-validation.ts';

interface PublishBarProps {
  appId: string;
  value: unknown;
  parses: boolean;
  dirty: boolean;
  /** Whether the server holds a draft; with none and no edits there is nothing to publish. */
  hasDraft: boolean;
  validation: ValidationView;
  publishedVersion: number | null;
  onSaved: (savedValue: unknown) => void;
  /** The draft became a version (the server keeps no draft after publishing). */
  onPublished: () => void;
}

function statusText(v: ValidationView, parses: boolean): string {
  if (!parses) return 'The JSON does not parse.';
  if (v.status === 'checking') return 'Checking…';
  if (v.status === 'unavailable')
    return `Validation unavailable: ${v.error?.message ?? 'no answer'}.`;
  if (v.status === 'invalid')
    return `${v.problems.length} problem${v.problems.length === 1 ? '' : 's'}: fix before publishing.`;
  return v.warnings.length > 0 ? `Valid, ${v.warnings.length} warning(s).` : 'Valid.';
}

/** The test run a publish refused by failing tests carries. */
function failedRun(error: ApiError | null): TestRun | undefined {
  return error?.code === 'BW_ERR_TESTS_FAILED' ? (error.details?.run as TestRun) : undefined;
}

export function PublishBar({
  appId,
  value,
  parses,
  dirty,
  hasDraft,
  validation,
  publishedVersion,
  onSaved,
  onPublished,
}: PublishBarProps) {
  const queryClient = useQueryClient();
  const [impact, setImpact] = useState<Impact | null>(null);
  const [note, setNote] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const refresh = (): Promise<void> =>
    queryClient.invalidateQueries({ queryKey: ['bot-flow', appId] });

  const save = useMutation<unknown, ApiError>({
    mutationFn: async () => {
      const saved = value;
      await saveDraft(appId, saved);
      return saved;
    },
    onSuccess: (saved) => {
      onSaved(saved);
      setMessage('Draft saved.');
      void refresh();
    },
  });
  const check = useMutation<Impact, ApiError>({
    mutationFn: async () => {
      if (dirty) {
        await saveDraft(appId, value);
        onSaved(value);
      }
      return getImpact(appId, 'draft');
    },
    onSuccess: setImpact,
  });
  const publish = useMutation<{ version: number }, ApiError, { override: boolean }>({
    mutationFn: ({ override }) => publishDraft(appId, note.trim() || undefined, override),
    onSuccess: (published) => {
      setImpact(null);
      setNote('');
      setMessage(`Published version ${published.version}.`);
      onPublished();
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['flow-versions', appId] });
    },
  });
  // A publish refused while its dialog is open is told there, not again in the bar.
  const error = save.error ?? check.error ?? (impact ? null : publish.error);
  const run = failedRun(publish.error);
  const canPublish =
    (dirty || hasDraft) &&
    parses &&
    validation.status === 'valid' &&
    !check.isPending &&
    !publish.isPending;
  return (
    <div className="publish-bar" role="toolbar" aria-label="Draft and publish">
      <span className="muted">
        {publishedVersion === null ? 'Not published yet' : `Live: version ${publishedVersion}`}
        {dirty ? ' · unsaved changes' : ''}
      </span>
      <span
        role="status"
        className={validation.status === 'invalid' || !parses ? 'problem-text' : 'muted'}
      >
        {statusText(validation, parses)}
      </span>
      <button
        type="button"
        disabled={!parses || !dirty || save.isPending}
        onClick={() => save.mutate()}
      >
        {save.isPending ? 'Saving…' : 'Save draft'}
      </button>
      <button
        type="button"
        className="primary"
        disabled={!canPublish}
        aria-describedby={canPublish ? undefined : 'publish-why'}
        onClick={() => {
          setMessage(null);
          check.mutate();
        }}
      >
        {check.isPending ? 'Checking…' : 'Publish'}
      </button>
      {!canPublish && (
        <span id="publish-why" className="visually-hidden">
          {dirty || hasDraft
            ? 'Publishing needs a flow without problems.'
            : 'Nothing to publish: the flow is the live version.'}
        </span>
      )}
      {message && !error && <span role="status">{message}</span>}
      {error && (
        <span role="alert" className="problem-text">
          {error.message} ({error.code})
        </span>
      )}
      {impact && (
        <ConfirmDialog
          title="Publish the draft?"
          confirmLabel={publish.isPending ? 'Publishing…' : 'Publish'}
          busy={publish.isPending}
          onCancel={() => setImpact(null)}
          onConfirm={() => publish.mutate({ override: false })}
        >
          <p>New turns use it at once.</p>
          <ImpactNote impact={impact} />
          <div className="field">
            <label htmlFor="publish-note">Note (optional)</label>
            <input id="publish-note" value={note} onChange={(e) => setNote(e.target.value)} />
          </div>
          {publish.error && (
            <div role="alert" className="problem-text">
              {run ? (
                <>
                  <p>Not published: the draft fails the bot&apos;s conversation tests.</p>
                  <RunResults run={run} announce={false} />
                </>
              ) : (
                <p>{publish.error.message}</p>
              )}
            </div>
          )}
          {/* Who may publish over the tests is the api's rule: the refusal says. */}
          {publish.error?.details?.may_override === false && (
            <p>Only an owner may publish over the tests; mend the flow or the tests.</p>
          )}
          {publish.error?.details?.may_override === true && (
            <button
              type="button"
              data-route="POST /v2/bots/:app_id/flow/publish"
              disabled={publish.isPending}
              onClick={() => publish.mutate({ override: true })}
            >
              Publish anyway (owner)
            </button>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}
