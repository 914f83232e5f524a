/**
 * One bot: rename, activate or deactivate, its channels (Telegram webhook), its WhatsApp templates,
 * delete; each control only for a role that may use it (`useMay`), a read-only view for the others.
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useBot, useUpdateBot } from '../../api/bots.ts';
import { useMay } from '../../api/permissions.ts';
import type { Bot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { problemPaths } from '../../api/api-error.ts';
import { Field } from './channel-fields.tsx';
import { DeleteBot } from './delete-bot-dialog.tsx';
import { ChannelsSection } from './channels-section.tsx';
import { TemplatesSection } from './templates-section.tsx';
import { BroadcastsSection } from '../broadcasts/broadcasts-section.tsx';

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
      <LanguageAndHandoff bot={bot} />
    </section>
  );
}

/** The bot's own language and its handoff settings (docs/handoff.md), in words. */
function LanguageAndHandoff({ bot }: { bot: Bot }) {
  const [language, setLanguage] = useState(bot.language ?? '');
  const [keywords, setKeywords] = useState((bot.handoff?.keywords ?? []).join('\n'));
  const [timeout, setTimeoutS] = useState(
    bot.handoff?.timeout_s === undefined ? '' : String(bot.handoff.timeout_s),
  );
  const update = useUpdateBot(bot.app_id);
  const problems = problemPaths(update.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const words = keywords
      .split('\n')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    update.mutate({
      language: language.trim(),
      handoff: {
        keywords: [...new Set(words)],
        ...(timeout.trim() === '' ? {} : { timeout_s: Number(timeout) }),
      },
    });
  };
  return (
    <form onSubmit={submit} data-route="PATCH /v2/bots/:app_id" aria-labelledby="bot-language-h">
      <h3 id="bot-language-h">Language and handoff</h3>
      <Field
        id="bot-language"
        label="Bot language"
        value={language}
        onChange={setLanguage}
        hint="The language its flow is written in, as a code: en, de, pt-BR. Users writing another get translations when a translation provider is set."
        problem={problems.has('/language') ? 'A language code such as en, de or pt-BR.' : undefined}
      />
      <Field
        id="bot-handoff-keywords"
        label="Words that ask for a person"
        value={keywords}
        onChange={setKeywords}
        multiline
        hint="One per line, at most 20: a message that is exactly one of them (any case) hands the conversation to a person."
        problem={
          [...problems].some((p) => p.startsWith('/handoff/keywords'))
            ? 'At most 20 different words or phrases, each up to 64 characters.'
            : undefined
        }
      />
      <Field
        id="bot-handoff-timeout"
        label="Seconds a handoff waits for a person"
        value={timeout}
        onChange={setTimeoutS}
        hint="Empty: the service's HANDOFF_TIMEOUT_S. Then the flow's fallback state runs."
        problem={
          problems.has('/handoff/timeout_s') ? 'A whole number from 10 to 604800.' : undefined
        }
      />
      <button type="submit" disabled={update.isPending}>
        Save language and handoff
      </button>
      <span aria-live="polite">{update.isSuccess ? ' Saved.' : ''}</span>
      {update.error && problems.size === 0 && (
        <ErrorAlert error={update.error} what="Could not save the settings." />
      )}
    </form>
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
          {may('GET /v2/bots/:app_id/analytics') && (
            <li data-route="GET /v2/bots/:app_id/analytics">
              <Link to={`/bots/${data.app_id}/analytics`}>Analytics</Link>
            </li>
          )}
        </ul>
      </nav>
      {may('PATCH /v2/bots/:app_id') ? (
        <EditBot key={data.app_id} bot={data} />
      ) : (
        <p>
          Status: <strong>{data.active ? 'Active' : 'Inactive'}</strong>
        </p>
      )}
      <ChannelsSection bot={data} />
      {data.channels.some((c) => c.type === 'whatsapp') && <TemplatesSection bot={data} />}
      {may('GET /v2/bots/:app_id/broadcasts') && <BroadcastsSection bot={data} />}
      {may('DELETE /v2/bots/:app_id') && (
        <section aria-labelledby="danger">
          <h2 id="danger">Delete</h2>
          <DeleteBot appId={data.app_id} name={data.name} />
        </section>
      )}
    </>
  );
}
