/**
 * The fields of a channel as an operator fills them in (adding a bot, adding a channel): its type
 * and the details that type needs. Secrets (tokens, app secret) are password fields; a problem
 * the API names at a field is shown at that field, in words.
 */
import type { ReactNode } from 'react';
import { problemPaths } from '../../api/api-error.ts';
import type { NewBot } from '../../api/types.ts';

export type ChannelType = 'telegram' | 'whatsapp' | 'web';

export const CHANNEL_LABELS: Record<ChannelType, string> = {
  telegram: 'Telegram',
  whatsapp: 'WhatsApp',
  web: 'Web chat',
};

/** Meta's tiers above the first, as the messaging limit's picker offers them. */
export const MESSAGING_LIMIT_OPTIONS = [
  ['1000', '1,000 users a day'],
  ['10000', '10,000 users a day'],
  ['100000', '100,000 users a day'],
  ['unlimited', 'Unlimited'],
] as const;

/** What each field must be, in words, shown when the API refuses it. */
const FIELD_WORDS: Record<string, string> = {
  bot_token:
    'A Telegram bot token, as @BotFather gives it: digits, a colon, then 20 or more letters (123456789:AAE…).',
  phone_number_id: "The WhatsApp phone number id: digits only, from Meta's WhatsApp API set-up.",
  access_token: 'The WhatsApp access token from Meta.',
  business_account_id:
    'The WhatsApp Business Account id: digits only, from Meta’s WhatsApp Manager.',
  allowed_origins:
    'Website origins, one per line: scheme, host and port with no path (https://shop.example), at most 20.',
};

/**
 * The channel as the API takes it. Its schema picks `details` by `type` (if/then), which the
 * generated types cannot express (`details` is any object there), so the shape is checked by the
 * server, not here.
 */
export function channelOf(type: ChannelType, fields: Record<string, string>): NewBot['channel'] {
  const given = (name: string) => (fields[name] ?? '').trim();
  return { type, details: detailsOf(type, given) };
}

export function detailsOf(
  type: ChannelType,
  given: (name: string) => string,
): Record<string, unknown> {
  if (type === 'telegram') return { bot_token: given('bot_token') };
  if (type === 'whatsapp') {
    const optional = Object.fromEntries(
      ['app_secret', 'verify_token', 'business_account_id']
        .filter((n) => given(n) !== '')
        .map((n) => [n, given(n)]),
    );
    const limit = given('messaging_limit');
    return {
      phone_number_id: given('phone_number_id'),
      access_token: given('access_token'),
      ...optional,
      ...(limit === '' ? {} : { messaging_limit: limit === 'unlimited' ? limit : Number(limit) }),
    };
  }
  const origins = given('allowed_origins')
    .split(/\s+/)
    .filter((o) => o !== '');
  return { allowed_origins: origins };
}

/** Whether the API refused the field `name` of a channel's details, and why, in words. */
export function fieldProblem(error: unknown, name: string): string | undefined {
  const hit = [...problemPaths(error)].some(
    (path) => path.includes(`/details/${name}`) || path === '/details',
  );
  return hit ? (FIELD_WORDS[name] ?? 'This value is not accepted.') : undefined;
}

export function Field(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  hint?: string;
  multiline?: boolean;
  secret?: boolean;
  problem?: string;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  const problemId = props.problem ? `${props.id}-problem` : undefined;
  const describedBy = [hintId, problemId].filter(Boolean).join(' ') || undefined;
  const common = {
    id: props.id,
    value: props.value,
    'aria-describedby': describedBy,
    'aria-invalid': props.problem !== undefined,
    onChange: (e: { target: { value: string } }) => props.onChange(e.target.value),
  };
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} />
      ) : (
        <input
          {...common}
          type={props.secret ? 'password' : 'text'}
          required={props.required}
          autoComplete={props.secret ? 'new-password' : 'off'}
        />
      )}
      {props.hint && (
        <small id={hintId} className="hint">
          {props.hint}
        </small>
      )}
      {props.problem && (
        <small id={problemId} className="problem-text" role="alert">
          {props.problem}
        </small>
      )}
    </div>
  );
}

/** The type picker and the details of `type`, for the form with id prefix `prefix`. */
export function ChannelFields(props: {
  prefix: string;
  type: ChannelType;
  onType: (type: ChannelType) => void;
  fields: Record<string, string>;
  onFields: (fields: Record<string, string>) => void;
  error: unknown;
  /** Types offered (a bot has at most one Telegram and one web channel). */
  types?: readonly ChannelType[];
}): ReactNode {
  const { prefix, type, fields, error } = props;
  const field = (
    name: string,
    label: string,
    options: { required?: boolean; hint?: string; secret?: boolean; multiline?: boolean } = {},
  ) => (
    <Field
      id={`${prefix}-${name}`}
      label={label}
      value={fields[name] ?? ''}
      onChange={(value) => props.onFields({ ...fields, [name]: value })}
      problem={fieldProblem(error, name)}
      {...options}
    />
  );
  const types = props.types ?? (['telegram', 'whatsapp', 'web'] as const);
  return (
    <>
      <div className="field">
        <label htmlFor={`${prefix}-channel`}>Channel type</label>
        <select
          id={`${prefix}-channel`}
          value={type}
          onChange={(e) => props.onType(e.target.value as ChannelType)}
        >
          {types.map((t) => (
            <option key={t} value={t}>
              {CHANNEL_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      {type === 'telegram' &&
        field('bot_token', 'Bot token', {
          required: true,
          secret: true,
          hint: 'From @BotFather: 123456:ABC…',
        })}
      {type === 'whatsapp' && (
        <>
          {field('phone_number_id', 'Phone number id', { required: true })}
          {field('access_token', 'Access token', { required: true, secret: true })}
          {field('app_secret', 'App secret (optional)', { secret: true })}
          {field('verify_token', 'Verify token (optional)', { secret: true })}
          {field('business_account_id', 'Business Account id (optional)', {
            hint: 'Its message templates are synced from it, to write after the 24-hour window.',
          })}
          <div className="field">
            <label htmlFor={`${prefix}-messaging_limit`}>Messaging limit</label>
            <select
              id={`${prefix}-messaging_limit`}
              aria-describedby={`${prefix}-messaging_limit-hint`}
              value={fields.messaging_limit ?? ''}
              onChange={(e) => props.onFields({ ...fields, messaging_limit: e.target.value })}
            >
              <option value="">250 users a day (where every number starts)</option>
              {MESSAGING_LIMIT_OPTIONS.map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
            <small id={`${prefix}-messaging_limit-hint`} className="hint">
              The number’s tier in WhatsApp Manager: how many users a day it may write to first,
              with a template. Broadcasts past it go on over the next days.
            </small>
          </div>
        </>
      )}
      {type === 'web' &&
        field('allowed_origins', 'Allowed origins', {
          multiline: true,
          hint: 'Websites that may embed the chat, one per line (https://shop.example); at most 20.',
        })}
    </>
  );
}
