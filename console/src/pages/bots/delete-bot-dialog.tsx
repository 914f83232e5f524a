/** Deleting a bot asks first, in a modal dialog (focus moves into it; Escape cancels). */
import { useRef } from 'react';
import { useNavigate } from 'react-router';
import { useDeleteBot } from '../../api/bots.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

export function DeleteBot({ appId, name }: { appId: string; name: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const remove = useDeleteBot(appId);
  const navigate = useNavigate();
  return (
    <>
      <button
        type="button"
        className="danger"
        data-route="DELETE /v2/bots/:app_id"
        onClick={() => dialog.current?.showModal()}
      >
        Delete bot
      </button>
      <dialog ref={dialog} aria-labelledby="delete-title" aria-describedby="delete-text">
        <h2 id="delete-title">Delete {name}?</h2>
        <p id="delete-text">
          The bot, its channels and its conversations are deleted. This cannot be undone.
        </p>
        {remove.error && <ErrorAlert error={remove.error} what="Could not delete the bot." />}
        <div className="actions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () => {
                  dialog.current?.close();
                  void navigate('/bots');
                },
              })
            }
          >
            Delete
          </button>
        </div>
      </dialog>
    </>
  );
}
