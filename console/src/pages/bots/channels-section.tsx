/**
 * A bot's channels on its page: each with its callback URL; a Telegram channel's webhook; a web
 * channel's snippet to paste (with a copy button) and its allowed origins to edit; removing one
 * after a confirmation that says its conversations go with it; and adding one. Each control only
 * for a role that may use it.
 */
import { useState, type FormEvent } from 'react';
import {
  useAddChannel,
  useRemoveChannel,
  useSetMessagingLimit,
  useUpdateChannel,
} from '../../api/bots.ts';
import { useMay } from '../../api/permissions.ts';
import type { Bot, ChannelView } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import {
  CHANNEL_LABELS,
  MESSAGING_LIMIT_OPTIONS,
  ChannelFields,
  channelOf,
  Field,
  fieldProblem,
  type ChannelType,
} from './channel-fields.tsx';
import { WebhookButton } from './webhook-button.tsx';

const labelOf = (type: string): string => CHANNEL_LABELS[type as ChannelType] ?? type;

function WebSnippet({ channel }: { channel: ChannelView }) {
  const [copied, setCopied] = useState(false);
  const snippet = channel.widget_snippet ?? '';
  return (
    <div className="field">
      <label htmlFor={`snippet-${channel.id}`}>Paste into your website’s pages</label>
      <textarea id={`snippet-${channel.id}`} readOnly value={snippet} rows={2} />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(snippet).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy snippet
      </button>
      <span aria-live="polite">{copied ? ' Copied.' : ''}</span>
    </div>
  );
}

function OriginsForm({ appId, channel }: { appId: string; channel: ChannelView }) {
  const [origins, setOrigins] = useState((channel.allowed_origins ?? []).join('\n'));
  const update = useUpdateChannel(appId, channel.id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ allowed_origins: origins.split(/\s+/).filter((o) => o !== '') });
  };
  return (
    <form onSubmit={submit} data-route="PATCH /v2/bots/:app_id/channels/:channel_id">
      <Field
        id={`origins-${channel.id}`}
        label="Allowed origins"
        value={origins}
        onChange={setOrigins}
        multiline
        hint="Websites that may embed the chat, one per line (https://shop.example); at most 20. The console's test chat needs none."
        problem={fieldProblem(update.error, 'allowed_origins')}
      />
      <button type="submit" disabled={update.isPending}>
        Save origins
      </button>
      <span aria-live="polite">{update.isSuccess ? ' Saved.' : ''}</span>
      {update.error && !fieldProblem(update.error, 'allowed_origins') && (
        <ErrorAlert error={update.error} what="Could not save the origins." />
      )}
    </form>
  );
}

/** A WhatsApp number's messaging limit, changed as its tier in WhatsApp Manager moves. */
function LimitForm({
  appId,
  channelId,
  limit: saved,
}: {
  appId: string;
  channelId: string;
  limit: NonNullable<ChannelView['messaging_limit']>;
}) {
  const [limit, setLimit] = useState(String(saved));
  const save = useSetMessagingLimit(appId, channelId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(limit === 'unlimited' ? limit : (Number(limit) as 250 | 1000 | 10000 | 100000));
  };
  const id = `limit-${channelId}`;
  return (
    <form
      onSubmit={submit}
      data-route="PUT /v2/bots/:app_id/channels/:channel_id/messaging-limit"
      aria-label="Messaging limit"
    >
      <div className="field">
        <label htmlFor={id}>Messaging limit</label>
        <select
          id={id}
          value={limit}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            save.reset();
            setLimit(e.target.value);
          }}
        >
          <option value="250">250 users a day</option>
          {MESSAGING_LIMIT_OPTIONS.map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
        <small id={`${id}-hint`} className="hint">
          Raise it when WhatsApp Manager shows the number moved up a tier.
        </small>
      </div>
      <button type="submit" disabled={save.isPending}>
        Save limit
      </button>
      <span aria-live="polite">{save.isSuccess ? ' Saved.' : ''}</span>
      {save.error && <ErrorAlert error={save.error} what="Could not save the limit." />}
    </form>
  );
}

function RemoveChannel({ appId, channel }: { appId: string; channel: ChannelView }) {
  const [asking, setAsking] = useState(false);
  const remove = useRemoveChannel(appId, channel.id);
  const label = labelOf(channel.type);
  return (
    <>
      <button
        type="button"
        className="danger"
        data-route="DELETE /v2/bots/:app_id/channels/:channel_id"
        onClick={() => setAsking(true)}
      >
        Remove {label} channel
      </button>
      {asking && (
        <ConfirmDialog
          title={`Remove the ${label} channel?`}
          confirmLabel={`Remove ${label}`}
          danger
          busy={remove.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => remove.mutate(undefined, { onSuccess: () => setAsking(false) })}
        >
          The bot stops answering there, and the channel’s conversations and their transcripts are
          deleted with it. The bot and its other channels stay.
        </ConfirmDialog>
      )}
      {remove.error && <ErrorAlert error={remove.error} what="Could not remove the channel." />}
    </>
  );
}

function AddChannel({ bot }: { bot: Bot }) {
  const has = (t: string) => bot.channels.some((c) => c.type === t);
  // One Telegram and one web channel per bot; WhatsApp numbers as many as wanted.
  const types = (['telegram', 'whatsapp', 'web'] as const).filter(
    (t) => t === 'whatsapp' || !has(t),
  );
  const [type, setType] = useState<ChannelType>(types[0] ?? 'whatsapp');
  const [fields, setFields] = useState<Record<string, string>>({});
  const add = useAddChannel(bot.app_id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(channelOf(type, fields), {
      onSuccess: () => setFields({}),
    });
  };
  const atField = [
    'bot_token',
    'phone_number_id',
    'access_token',
    'business_account_id',
    'allowed_origins',
  ].some((name) => fieldProblem(add.error, name) !== undefined);
  return (
    <form
      onSubmit={submit}
      data-route="POST /v2/bots/:app_id/channels"
      aria-labelledby="add-channel"
    >
      <h3 id="add-channel">Add a channel</h3>
      <ChannelFields
        prefix="add-channel"
        type={type}
        onType={setType}
        fields={fields}
        onFields={setFields}
        error={add.error}
        types={types}
      />
      <button type="submit" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add channel'}
      </button>
      {add.error && !atField && <ErrorAlert error={add.error} what="Could not add the channel." />}
    </form>
  );
}

export function ChannelsSection({ bot }: { bot: Bot }) {
  const may = useMay();
  return (
    <section aria-labelledby="channels">
      <h2 id="channels">Channels</h2>
      {bot.channels.length === 0 && <p>No channel: the bot answers only its test chats.</p>}
      <ul className="channels">
        {bot.channels.map((channel) => (
          <li key={channel.id}>
            <h3>{labelOf(channel.type)}</h3>
            <p>
              Callback <code>{channel.callback_url}</code>
              {channel.webhook_registered_at && (
                <span>
                  {' '}
                  (webhook registered {new Date(channel.webhook_registered_at).toLocaleString()})
                </span>
              )}
            </p>
            {channel.credentials === 'unreadable' && (
              <p role="alert">
                Its credentials do not open with the service&apos;s credentials key: it neither
                takes nor sends messages until the key they were sealed with is set again as{' '}
                <code>CREDENTIALS_KEY_PREVIOUS</code>, or the channel is removed and added again.
              </p>
            )}
            {channel.type === 'telegram' &&
              channel.credentials !== 'unreadable' &&
              may('POST /v2/bots/:app_id/channels/:channel_id/webhook') && (
                <WebhookButton appId={bot.app_id} channel={channel} />
              )}
            {channel.type === 'whatsapp' && channel.messaging_limit !== undefined && (
              <p>
                Phone number id <code>{channel.phone_number_id}</code>;{' '}
                {channel.business_account_id ? (
                  <>
                    Business Account <code>{channel.business_account_id}</code>
                  </>
                ) : (
                  'no Business Account id (its templates cannot be synced)'
                )}
                ; messaging limit{' '}
                {channel.messaging_limit === 'unlimited'
                  ? 'unlimited'
                  : `${channel.messaging_limit.toLocaleString('en')} users a day`}
              </p>
            )}
            {channel.type === 'whatsapp' &&
              channel.messaging_limit !== undefined &&
              may('PUT /v2/bots/:app_id/channels/:channel_id/messaging-limit') && (
                <LimitForm
                  appId={bot.app_id}
                  limit={channel.messaging_limit}
                  channelId={channel.id}
                />
              )}
            {channel.type === 'web' && channel.credentials !== 'unreadable' && (
              <WebSnippet channel={channel} />
            )}
            {channel.type === 'web' &&
              channel.credentials !== 'unreadable' &&
              may('PATCH /v2/bots/:app_id/channels/:channel_id') && (
                <OriginsForm appId={bot.app_id} channel={channel} />
              )}
            {may('DELETE /v2/bots/:app_id/channels/:channel_id') && (
              <RemoveChannel appId={bot.app_id} channel={channel} />
            )}
          </li>
        ))}
      </ul>
      {may('POST /v2/bots/:app_id/channels') && <AddChannel key={bot.channels.length} bot={bot} />}
    </section>
  );
}
