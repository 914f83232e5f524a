/**
 * Discard the draft: after a confirmation, the saved draft is deleted on the server
 * (`DELETE .../flow/draft`) and the editor goes back to the published flow.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import type { ApiError } from '../../api/api-error.ts';
import { discardDraft } from './flow-api.ts';

interface DiscardDraftButtonProps {
  appId: string;
  /** Whether there is anything to discard: a saved draft or unsaved edits. */
  enabled: boolean;
  onDiscarded: () => void;
}

export function DiscardDraftButton({ appId, enabled, onDiscarded }: DiscardDraftButtonProps) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const discard = useMutation<void, ApiError>({
    mutationFn: () => discardDraft(appId),
    onSuccess: () => {
      setAsking(false);
      onDiscarded();
      void queryClient.invalidateQueries({ queryKey: ['bot-flow', appId] });
    },
  });
  return (
    <>
      <button type="button" disabled={!enabled} onClick={() => setAsking(true)}>
        Discard draft
      </button>
      {asking && (
        <ConfirmDialog
          title="Discard the draft?"
          confirmLabel="Discard draft"
          danger
          busy={discard.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => discard.mutate()}
        >
          <p>The saved draft and unsaved edits are lost; the editor shows the published flow.</p>
          {discard.error && (
            <p role="alert" className="problem-text">
              {discard.error.message} ({discard.error.code})
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
