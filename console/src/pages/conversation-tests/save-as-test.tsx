/** "Save as test" under the test chat: its conversation so far becomes a conversation test. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { errorText } from '../../api/api-error.ts';
import { saveChatAsTest, testKeys } from './tests-api.ts';

export function SaveAsTest({ appId, chatId }: { appId: string; chatId: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const save = useMutation({
    mutationFn: (n: string) => saveChatAsTest(appId, chatId, n),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: testKeys.list(appId) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() !== '') save.mutate(name.trim());
  };
  return (
    <form
      className="save-as-test"
      onSubmit={submit}
      data-route="POST /v2/bots/:app_id/tests/from-chat"
    >
      <label htmlFor={`${id}-name`}>Test name</label>
      <input
        id={`${id}-name`}
        value={name}
        maxLength={100}
        pattern="[A-Za-z0-9][A-Za-z0-9 ._\-]*"
        title="Letters, digits, spaces, dots, dashes and underscores"
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" disabled={name.trim() === '' || save.isPending}>
        {save.isPending ? 'Saving…' : 'Save as test'}
      </button>
      {save.data && (
        <span role="status">
          Saved as test “{save.data.name}” ({save.data.test.steps.length} steps).
        </span>
      )}
      {save.isError && <span role="alert">Could not save: {errorText(save.error)}</span>}
    </form>
  );
}
