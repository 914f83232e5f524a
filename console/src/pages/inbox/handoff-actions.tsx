/**
 * What an agent does with a handoff besides answering: claim or release it, hand it back to the
 * bot at a state of its published flow, or close it (after a confirmation). A claim someone else
 * won is said plainly: "Claimed by …".
 */
import { useState } from 'react';
import { ApiError } from '../../api/api-error.ts';
import type { HandoffDetail } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { actorName } from '../conversations/message-model.ts';
import { claimHandoff, closeHandoff, handBack, releaseHandoff } from './inbox-api.ts';
import { useHandoffAction } from './use-handoff-action.ts';

/** A refused claim as the agent reads it: who has it, when the API said. */
function ClaimRefused({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.code === 'BW_ERR_HANDOFF_CLAIMED') {
    const by = error.details?.claimed_by;
    return (
      <div role="alert" className="error-alert">
        Claimed by {typeof by === 'string' ? actorName(by) : 'another agent'}: they answer this
        conversation now.
      </div>
    );
  }
  return <ErrorAlert error={error} what="Could not claim the conversation." />;
}

export function ClaimBar({ handoff, holds }: { handoff: HandoffDetail; holds: boolean }) {
  const claim = useHandoffAction(() => claimHandoff(handoff.id));
  const release = useHandoffAction(() => releaseHandoff(handoff.id));
  return (
    <div className="handoff__claim">
      {handoff.status === 'waiting' ? (
        <button type="button" onClick={() => claim.mutate()} disabled={claim.isPending}>
          {claim.isPending ? 'Claiming…' : 'Claim'}
        </button>
      ) : null}
      {holds ? (
        <button type="button" onClick={() => release.mutate()} disabled={release.isPending}>
          Release to the queue
        </button>
      ) : null}
      {claim.isError ? <ClaimRefused error={claim.error} /> : null}
      {release.isError ? (
        <ErrorAlert error={release.error} what="Could not release the conversation." />
      ) : null}
    </div>
  );
}

/** Whether the viewer may end it: the holder, or anyone while nobody holds it. */
const mayEnd = (handoff: HandoffDetail, holds: boolean) => holds || handoff.status === 'waiting';

export function HandBack({ handoff, holds }: { handoff: HandoffDetail; holds: boolean }) {
  const [state, setState] = useState('');
  const back = useHandoffAction((at: string) => handBack(handoff.id, at));
  if (!mayEnd(handoff, holds)) return null;
  return (
    <form
      className="handoff__form"
      onSubmit={(event) => {
        event.preventDefault();
        if (state !== '') back.mutate(state);
      }}
    >
      <label>
        Hand back at state
        <select value={state} onChange={(e) => setState(e.target.value)}>
          <option value="">Choose a state…</option>
          {handoff.states.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={state === '' || back.isPending || back.isSuccess}>
        Hand back to the bot
      </button>
      {back.isSuccess ? <p role="status">The bot takes over at {back.variables}…</p> : null}
      {back.isError ? <ErrorAlert error={back.error} what="Could not hand back." /> : null}
    </form>
  );
}

export function CloseHandoff(props: { handoff: HandoffDetail; holds: boolean; person: string }) {
  const { handoff, holds, person } = props;
  const [asking, setAsking] = useState(false);
  const close = useHandoffAction(() => closeHandoff(handoff.id));
  if (!mayEnd(handoff, holds)) return null;
  return (
    <div className="handoff__form">
      <button
        type="button"
        className="danger"
        onClick={() => setAsking(true)}
        disabled={close.isPending || close.isSuccess}
      >
        Close the conversation
      </button>
      {close.isSuccess ? <p role="status">Closing…</p> : null}
      {close.isError ? <ErrorAlert error={close.error} what="Could not close." /> : null}
      {asking ? (
        <ConfirmDialog
          title={`Close the conversation with ${person}?`}
          confirmLabel="Close conversation"
          danger
          busy={close.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => close.mutate(undefined, { onSettled: () => setAsking(false) })}
        >
          <p>
            The handoff ends and the conversation with it: nothing more is sent to them, and their
            next message starts the bot&apos;s flow from the beginning.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
