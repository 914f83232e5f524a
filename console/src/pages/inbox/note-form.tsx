/** An internal note: kept in the transcript for the other agents, never sent to the user. */
import { useState } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { addNote } from './inbox-api.ts';
import { useHandoffAction } from './use-handoff-action.ts';

export function NoteForm({ handoffId }: { handoffId: string }) {
  const [text, setText] = useState('');
  const note = useHandoffAction((words: string) => addNote(handoffId, words));
  return (
    <section aria-labelledby="handoff-note">
      <h2 id="handoff-note">Internal note</h2>
      <form
        className="handoff__form"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() === '') return;
          note.mutate(text.trim(), { onSuccess: () => setText('') });
        }}
      >
        <label>
          Note for the team (never sent)
          <textarea value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit" disabled={text.trim() === '' || note.isPending}>
          Add note
        </button>
        {note.isError ? <ErrorAlert error={note.error} what="The note was not kept." /> : null}
      </form>
    </section>
  );
}
