/**
 * Creates a bot with its first channel. No flow is sent: the server starts the bot on its default
 * flow (docs/flows.md), which the flow editor then changes.
 */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useCreateBot } from '../../api/bots.ts';
import type { NewBot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

type ChannelType = 'telegram' | 'whatsapp' | 'web';

/**
 * The channel as the API takes it. Its schema picks `details` by `type` (if/then), which the
 * generated types cannot express (`details` is any object there), so the shape is checked by the
 * server, not here.
 */
function channelOf(type: ChannelType, fields: Record<string, string>): NewBot['channel'] {
  const given = (name: string) => (fields[name] ?? '').trim();
  return { type, details: detailsOf(type, given) };
}

function detailsOf(type: ChannelType, given: (name: string) => string): Record<string, unknown> {
  if (type === 'telegram') return { bot_token: given('bot_token') };
  if (type === 'whatsapp') {
    const optional = Object.fromEntries(
      ['app_secret', 'verify_token'].filter((n) => given(n) !== '').map((n) => [n, given(n)]),
    );
    return {
      phone_number_id: given('phone_number_id'),
      access_token: given('access_token'),
      ...optional,
    };
  }
  const origins = given('allowed_origins')
    .split(/\s+/)
    .filter((o) => o !== '');
  return { allowed_origins: origins };
}

function Field(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  hint?: string;
  multiline?: boolean;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea
          id={props.id}
          value={props.value}
          aria-describedby={hintId}
          onChange={(e) => props.onChange(e.target.value)}
        />
      ) : (
        <input
          id={props.id}
          value={props.value}
          required={props.required}
          aria-describedby={hintId}
          autoComplete="off"
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
      {props.hint && (
        <small id={hintId} className="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

export function CreateBotForm() {
  const [name, setName] = useState('');
  const [type, setType] = useState<ChannelType>('telegram');
  const [fields, setFields] = useState<Record<string, string>>({});
  const create = useCreateBot();
  const navigate = useNavigate();
  const field = (
    id: string,
    label: string,
    options: { required?: boolean; hint?: string } = {},
  ) => (
    <Field
      id={`new-bot-${id}`}
      label={label}
      value={fields[id] ?? ''}
      onChange={(value) => setFields({ ...fields, [id]: value })}
      {...options}
    />
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), channel: channelOf(type, fields) },
      { onSuccess: (bot) => void navigate(`/bots/${bot.app_id}`) },
    );
  };
  return (
    <section aria-labelledby="new-bot">
      <h2 id="new-bot">New bot</h2>
      <form onSubmit={submit} data-route="POST /v2/bots">
        <Field id="new-bot-name" label="Name" value={name} onChange={setName} required />
        <fieldset>
          <legend>Channel</legend>
          <div className="field">
            <label htmlFor="new-bot-channel">Channel type</label>
            <select
              id="new-bot-channel"
              value={type}
              onChange={(e) => setType(e.target.value as ChannelType)}
            >
              <option value="telegram">Telegram</option>
              <option value="whatsapp">WhatsApp</option>
              <option value="web">Web chat</option>
            </select>
          </div>
          {type === 'telegram' &&
            field('bot_token', 'Bot token', {
              required: true,
              hint: 'From @BotFather: 123456:ABC…',
            })}
          {type === 'whatsapp' && (
            <>
              {field('phone_number_id', 'Phone number id', { required: true })}
              {field('access_token', 'Access token', { required: true })}
              {field('app_secret', 'App secret (optional)')}
              {field('verify_token', 'Verify token (optional)')}
            </>
          )}
          {type === 'web' && (
            <Field
              id="new-bot-allowed_origins"
              label="Allowed origins"
              value={fields.allowed_origins ?? ''}
              onChange={(value) => setFields({ ...fields, allowed_origins: value })}
              multiline
              hint="Websites that may embed the chat, one per line (https://shop.example); at most 20."
            />
          )}
        </fieldset>
        <p className="hint">The bot starts with the default flow; edit it in the flow editor.</p>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create bot'}
        </button>
        {create.error && <ErrorAlert error={create.error} what="Could not create the bot." />}
      </form>
    </section>
  );
}
