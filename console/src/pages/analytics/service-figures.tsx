/**
 * The service users got over the range (docs/analytics.md#the-service-users-got): how long they
 * waited for the bot and for a person, how handoffs ended, and the replies platforms refused, by
 * code. The api has none with a language or version filter; this page asks for neither.
 */
import type { Analytics } from '../../api/analytics.ts';
import { refusalMeaning } from '../../components/refusal-meaning.ts';
import { duration, percent } from './figures.ts';

type Service = NonNullable<Analytics['service']>;

function Waits({
  label,
  wait,
  counted,
}: {
  label: string;
  wait: Service['bot_response_ms'];
  counted: string;
}) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <strong>{duration(wait.median)}</strong>
        <span>
          {wait.count === 0
            ? `no ${counted} in this range`
            : `median; 90 % within ${duration(wait.p90)} (${wait.count} ${counted})`}
        </span>
      </dd>
    </div>
  );
}

export function ServiceFigures({ service }: { service: Service }) {
  const { handoffs_ended: ended, send_failures: failures } = service;
  const endedAll = ended.closed + ended.returned + ended.timed_out;
  return (
    <section aria-labelledby="service">
      <h2 id="service">The service users got</h2>
      <dl className="analytics-cards">
        <Waits label="Bot response time" wait={service.bot_response_ms} counted="answers" />
        <Waits
          label="First agent reply"
          wait={service.agent_first_reply_ms}
          counted="handoffs answered"
        />
        <div>
          <dt>Handoffs resolved by agents</dt>
          <dd>
            <strong>{percent(ended.resolved_by_agent)}</strong>
            <span>
              {endedAll === 0
                ? 'no handoff ended in this range'
                : `of ${endedAll} ended: ${ended.closed} closed, ${ended.returned} returned to the bot, ${ended.timed_out} timed out`}
            </span>
          </dd>
        </div>
        <div>
          <dt>Replies refused</dt>
          <dd>
            <strong>{failures.reduce((sum, f) => sum + f.count, 0)}</strong>
            <span>by the platforms</span>
          </dd>
        </div>
      </dl>
      {failures.length > 0 && (
        <table className="analytics-table">
          <caption>Replies refused, by the platform&apos;s code</caption>
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Replies</th>
              <th scope="col">Means</th>
            </tr>
          </thead>
          <tbody>
            {failures.map((f) => (
              <tr key={f.code}>
                <th scope="row">{f.code || 'none given'}</th>
                <td>{f.count}</td>
                <td className="analytics-means">{refusalMeaning(f.code)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
