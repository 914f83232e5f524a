/**
 * A bot's analytics (route `bots/:appId/analytics`, docs/analytics.md): over the last 7, 30 or
 * 90 days and one channel or all (kept in the URL query), the totals and rates, conversations by
 * day, the service users got (waits, handoff outcomes, refused replies), where users give up (per
 * state, most first), by channel, language and flow version, and the figures as CSV. Test chats
 * are never in them.
 */
import { Link, useParams, useSearchParams } from 'react-router';
import { analyticsCsvUrl, dayBefore, useAnalytics, type Analytics } from '../../api/analytics.ts';
import { BotName } from '../../components/bot-name.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { useMe } from '../../api/accounts.ts';
import { useMay } from '../../api/permissions.ts';
import { DayBars } from './day-bars.tsx';
import { ServiceFigures } from './service-figures.tsx';
import { dropOffRows, percent } from './figures.ts';
import './analytics.css';

const RANGES = [7, 30, 90] as const;
const CHANNELS: [value: string, label: string][] = [
  ['', 'all channels'],
  ['telegram', 'Telegram'],
  ['whatsapp', 'WhatsApp'],
  ['web', 'web'],
];

/** The bot's counters of one group (a channel, a language, a version). */
type Counters = Omit<Analytics['by_day'][number], 'day'>;

function Totals({ data }: { data: Analytics }) {
  const { totals, rates } = data;
  const cards: [label: string, value: string, note?: string][] = [
    ['Conversations', String(totals.conversations)],
    [
      'Users',
      totals.users === null ? '–' : String(totals.users),
      `${totals.new_users} new, ${totals.returning_users ?? '–'} returning`,
    ],
    ['Messages', `${totals.messages_in} in`, `${totals.messages_out} out`],
    ['Completed', percent(rates.completion), `${totals.completed} reached an end`],
    [
      'Not understood',
      percent(rates.did_not_understand),
      `${totals.reasks} asked again, ${totals.fallbacks} gave up`,
    ],
    ['Handoffs', percent(rates.handoff), `${totals.handoffs} to a person`],
    ['Unanswered questions', String(totals.unanswered), 'knowledge with nothing relevant'],
  ];
  return (
    <dl className="analytics-cards">
      {cards.map(([label, value, note]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            <strong>{value}</strong>
            {note && <span>{note}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Breakdown({ title, by, rows }: { title: string; by: string; rows: [string, Counters][] }) {
  if (rows.length === 0) return null;
  return (
    <table className="analytics-table">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">{by}</th>
          <th scope="col">Conversations</th>
          <th scope="col">Messages in</th>
          <th scope="col">Completed</th>
          <th scope="col">Handoffs</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, c]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{c.conversations}</td>
            <td>{c.messages_in}</td>
            <td>{c.completed}</td>
            <td>{c.handoffs}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AnalyticsPage() {
  const { appId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const may = useMay();
  const days = RANGES.find((d) => String(d) === search.get('days')) ?? 7;
  const channel = search.get('channel') ?? '';
  const query = {
    from: dayBefore(days - 1),
    to: dayBefore(0),
    ...(channel === '' ? {} : { channel_type: channel as 'telegram' | 'whatsapp' | 'web' }),
  };
  const me = useMe();
  const allowed = may('GET /v2/bots/:app_id/analytics');
  const analytics = useAnalytics(appId, query, allowed);
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    setSearch(next, { replace: true });
  };
  const data = analytics.data;
  if (me.isSuccess && !allowed) {
    return (
      <div className="analytics-page">
        <h1>Analytics</h1>
        <p>
          Owners, builders and viewers read a bot&apos;s figures; your role handles its
          conversations.
        </p>
      </div>
    );
  }
  return (
    <div className="analytics-page">
      <p>
        <BotName appId={appId} />
      </p>
      <h1>Analytics</h1>
      <form className="analytics-filters" aria-label="Filters">
        <label htmlFor="analytics-range">Range</label>
        <select id="analytics-range" value={days} onChange={(e) => set('days', e.target.value)}>
          {RANGES.map((d) => (
            <option key={d} value={d}>
              last {d} days
            </option>
          ))}
        </select>
        <label htmlFor="analytics-channel">Channel</label>
        <select
          id="analytics-channel"
          value={channel}
          onChange={(e) => set('channel', e.target.value)}
        >
          {CHANNELS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <span className="hint">
          {query.from} to {query.to} (UTC). Test chats are not counted.
        </span>
      </form>
      {analytics.isPending && <p role="status">Loading the figures…</p>}
      {analytics.isError && (
        <ErrorAlert error={analytics.error} what="Could not load the figures." />
      )}
      {data && (
        <>
          <Totals data={data} />
          <DayBars days={data.by_day} />
          {data.service && <ServiceFigures service={data.service} />}
          <section aria-labelledby="drop-off">
            <h2 id="drop-off">Where users give up</h2>
            <p className="hint">
              Per state, most given up first. “Gave up” counts entries that went nowhere in the
              range: users who left, and those still waiting there.{' '}
              {may('GET /v2/bots/:app_id/flow') && (
                <span data-route="GET /v2/bots/:app_id/flow">
                  <Link to={`/bots/${appId}/flow?dropoff=${days}`}>See it on the flow graph</Link>
                </span>
              )}
            </p>
            {data.states.length === 0 ? (
              <p>No conversation in this range.</p>
            ) : (
              <table className="analytics-table">
                <caption>States</caption>
                <thead>
                  <tr>
                    <th scope="col">State</th>
                    <th scope="col">Entered</th>
                    <th scope="col">Went on</th>
                    <th scope="col">Ended</th>
                    <th scope="col">Handed off</th>
                    <th scope="col">Gave up</th>
                    <th scope="col">Asked again</th>
                  </tr>
                </thead>
                <tbody>
                  {dropOffRows(data.states).map((s) => (
                    <tr key={s.state}>
                      <th scope="row">{s.state}</th>
                      <td>{s.entered}</td>
                      <td>{s.left_forward}</td>
                      <td>{s.ended}</td>
                      <td>{s.handoffs}</td>
                      <td>
                        {s.abandoned} ({percent(s.abandonedShare)})
                      </td>
                      <td>{s.reasks + s.fallbacks}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section aria-labelledby="breakdowns">
            <h2 id="breakdowns">By channel, language and version</h2>
            <Breakdown
              title="By channel"
              by="Channel"
              rows={data.by_channel.map((c): [string, Counters] => [c.channel_type, c])}
            />
            <Breakdown
              title="By language"
              by="Language"
              rows={data.by_language.map((c) => [c.language || 'not known', c])}
            />
            <Breakdown
              title="By flow version"
              by="Version"
              rows={data.by_version.map((c): [string, Counters] => [
                c.flow_version === 0 ? 'none' : `version ${c.flow_version}`,
                c,
              ])}
            />
          </section>
          <p>
            Download as CSV: <a href={analyticsCsvUrl(appId, query, 'days')}>by day</a>,{' '}
            <a href={analyticsCsvUrl(appId, query, 'states')}>by state</a>,{' '}
            <a href={analyticsCsvUrl(appId, query, 'service')}>the service by day</a>.
          </p>
        </>
      )}
    </div>
  );
}
