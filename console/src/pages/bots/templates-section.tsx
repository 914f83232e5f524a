/**
 * A bot's WhatsApp message templates (docs/outbound.md, "WhatsApp templates"): as last synced from
 * each WhatsApp channel's Business Account, with their status and the texts each takes, and (for
 * owners and builders) "Sync templates" to read them again. Shown for bots with a WhatsApp channel.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';
import { useMay } from '../../api/permissions.ts';
import type { Bot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { listTemplates, templatesKey } from '../inbox/inbox-api.ts';
import { takesInWords } from '../inbox/template-draft.ts';

async function syncTemplates(appId: string) {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/templates/sync', { params: { path: { app_id: appId } } }),
  );
}

export function TemplatesSection({ bot }: { bot: Bot }) {
  const may = useMay();
  const queryClient = useQueryClient();
  const key = templatesKey(bot.app_id);
  const templates = useQuery({ queryKey: key, queryFn: () => listTemplates(bot.app_id) });
  const sync = useMutation({
    mutationFn: () => syncTemplates(bot.app_id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const unsynced = sync.data?.channels.filter((c) => !c.synced) ?? [];
  const items = templates.data ?? [];
  return (
    <section aria-labelledby="templates">
      <h2 id="templates">WhatsApp templates</h2>
      <p className="hint">
        Approved templates are what the bot and agents may send once a user’s 24-hour window has
        closed.
      </p>
      {may('POST /v2/bots/:app_id/templates/sync') && (
        <p data-route="POST /v2/bots/:app_id/templates/sync">
          <button type="button" onClick={() => sync.mutate()} disabled={sync.isPending}>
            {sync.isPending ? 'Syncing…' : 'Sync templates'}
          </button>
        </p>
      )}
      <div aria-live="polite">
        {sync.isSuccess && (
          <p role="status">
            Synced:{' '}
            {sync.data.channels
              .filter((c) => c.synced)
              .map((c) => `${c.templates ?? 0} templates`)
              .join(', ') || 'no channel'}
            .
            {unsynced.length > 0 &&
              ` ${unsynced.length} WhatsApp channel(s) have no Business Account id: add it to the channel to sync.`}
          </p>
        )}
      </div>
      {sync.isError && <ErrorAlert error={sync.error} what="Could not sync the templates." />}
      <QueryState
        query={templates}
        failed="Could not load the templates."
        empty="No template yet: sync them from the WhatsApp Business Account."
        isEmpty={items.length === 0}
        onRetry={() => void templates.refetch()}
      />
      {items.length > 0 && (
        <table>
          <caption>Templates</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Language</th>
              <th scope="col">Category</th>
              <th scope="col">Status</th>
              <th scope="col">What it takes</th>
            </tr>
          </thead>
          <tbody>
            {items.map((t) => (
              <tr key={`${t.channel_id}/${t.name}/${t.language}`}>
                <th scope="row">{t.name}</th>
                <td>{t.language}</td>
                <td>{t.category}</td>
                <td>{t.status}</td>
                <td>{takesInWords(t.parameters)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
