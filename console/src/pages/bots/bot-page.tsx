/**
 * One bot: rename, activate or deactivate, its channels (Telegram webhook), delete; each control
 * only for a role that may use it (`useMay`), a read-only view for the others.
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useBot, useUpdateBot } from '../../api/bots.ts';
import { useMay } from '../../api/permissions.ts';
import type { Bot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { DeleteBot } from './delete-bot-dialog.tsx';
import { WebhookButton } from './webhook-button.tsx';

function EditBot({ bot }: { bot: Bot }) {
  const [name, setName] = useState(bot.name);
  const update = useUpdateBot(bot.app_id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ name: name.trim() });
  };
  return (
    <section aria-labelledby="edit-bot">
      <h2 id="edit-bot">Settings</h2>
      <form onSubmit={submit} data-route="PATCH /v2/bots/:app_id">
        <div className="field">
          <label htmlFor="bot-name">Name</label>
          <input id="bot-name" required value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" disabled={update.isPending || name.trim() === bot.name}>
          Save name
        </button>
      </form>
      <p>
        Status: <strong>{bot.active ? 'Active' : 'Inactive'}</strong>{' '}
        <button
          type="button"
          disabled={update.isPending}
          onClick={() => update.mutate({ active: !bot.active })}
        >
          {bot.active ? 'Deactivate' : 'Activate'}
        </button>
      </p>
      <div aria-live="polite">
        {update.isSuccess && (
          <p role="status" className="ok">
            Saved.
          </p>
        )}
      </div>
      {update.error && <ErrorAlert error={update.error} what="Could not save the bot." />}
    </section>
  );
}

export function BotPage() {
  const appId = useParams().appId ?? '';
  const bot = useBot(appId);
  const may = useMay();
  if (bot.isPending) return <p role="status">Loading the bot…</p>;
  if (bot.isError) {
    return (
      <>
        <h1>Bot</h1>
        {bot.error && <ErrorAlert error={bot.error} what="Could not load the bot." />}
        <Link to="/bots">All bots</Link>
      </>
    );
  }
  const data = bot.data;
  return (
    <>
      <p>
        <Link to="/bots">All bots</Link>
      </p>
      <h1>{data.name}</h1>
      <p className="hint">
        App id <code>{data.app_id}</code>
      </p>
      <nav aria-label="This bot">
        <ul className="bot-links">
          {may('GET /v2/bots/:app_id/flow') && (
            <li data-route="GET /v2/bots/:app_id/flow">
              <Link to={`/bots/${data.app_id}/flow`}>Flow editor</Link>
            </li>
          )}
          {may('POST /v2/bots/:app_id/test-chats') && (
            <li data-route="POST /v2/bots/:app_id/test-chats">
              <Link to={`/bots/${data.app_id}/chat`}>Test chat</Link>
            </li>
          )}
          <li>
            <Link to={`/bots/${data.app_id}/conversations`}>Conversations</Link>
          </li>
        </ul>
      </nav>
      {may('PATCH /v2/bots/:app_id') ? (
        <EditBot key={data.app_id} bot={data} />
      ) : (
        <p>
          Status: <strong>{data.active ? 'Active' : 'Inactive'}</strong>
        </p>
      )}
      <section aria-labelledby="channels">
        <h2 id="channels">Channels</h2>
        <ul className="channels">
          {data.channels.map((channel) => (
            <li key={channel.id}>
              <strong>{channel.type}</strong> callback <code>{channel.callback_url}</code>
              {channel.webhook_registered_at && (
                <span>
                  {' '}
                  (webhook registered {new Date(channel.webhook_registered_at).toLocaleString()})
                </span>
              )}
              {channel.type === 'telegram' &&
                may('POST /v2/bots/:app_id/channels/:channel_id/webhook') && (
                  <WebhookButton appId={data.app_id} channel={channel} />
                )}
            </li>
          ))}
        </ul>
      </section>
      {may('DELETE /v2/bots/:app_id') && (
        <section aria-labelledby="danger">
          <h2 id="danger">Delete</h2>
          <DeleteBot appId={data.app_id} name={data.name} />
        </section>
      )}
    </>
  );
}
