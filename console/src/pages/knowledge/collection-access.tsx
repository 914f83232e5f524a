/**
 * Which bots' flows may answer from a collection: its owner bot and whether every bot may
 * (`PATCH /v2/collections/:name`, docs/knowledge.md). A collection just uploaded is owned by none
 * and not shared, so no bot can use it until this is set.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.ts';
import { useBots } from '../../api/bots.ts';
import type { CollectionDetail } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { knowledgeKeys } from './knowledge-api.ts';

export function CollectionAccess({ name, detail }: { name: string; detail: CollectionDetail }) {
  const id = useId();
  const bots = useBots();
  const queryClient = useQueryClient();
  const [owner, setOwner] = useState(detail.owner_app_id ?? '');
  const [shared, setShared] = useState(detail.shared);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/v2/collections/{name}', {
          params: { path: { name } },
          body: { owner_app_id: owner === '' ? null : owner, shared },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: knowledgeKeys.collection(name) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const nobody = owner === '' && !shared;
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Which bots may use it</h2>
      <form onSubmit={submit} data-route="PATCH /v2/collections/:name">
        <p>
          <label htmlFor={`${id}-owner`}>Owner bot</label>{' '}
          <select id={`${id}-owner`} value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">None</option>
            {(bots.data?.items ?? []).map((bot) => (
              <option key={bot.app_id} value={bot.app_id}>
                {bot.name}
              </option>
            ))}
          </select>
        </p>
        <p>
          <input
            id={`${id}-shared`}
            type="checkbox"
            checked={shared}
            onChange={(e) => setShared(e.target.checked)}
          />{' '}
          <label htmlFor={`${id}-shared`}>Shared: every bot may answer from it</label>
        </p>
        {nobody && (
          <p className="hint">No bot may answer from it yet: pick its owner or share it.</p>
        )}
        <button type="submit" disabled={save.isPending}>
          Save who may use it
        </button>
        <span aria-live="polite">{save.isSuccess ? ' Saved.' : ''}</span>
      </form>
      {save.error && <ErrorAlert error={save.error} what="Could not save who may use it." />}
    </section>
  );
}
