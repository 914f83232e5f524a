/** Conversations by day as a bar per day, with the figures in a table for screen readers. */
import type { Analytics } from '../../api/analytics.ts';

export function DayBars({ days }: { days: Analytics['by_day'] }) {
  const most = Math.max(1, ...days.map((d) => d.conversations));
  return (
    <section aria-labelledby="by-day">
      <h2 id="by-day">Conversations by day</h2>
      <table className="day-bars">
        <caption className="visually-hidden">Conversations, completed and handoffs by day</caption>
        <thead className="visually-hidden">
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Conversations</th>
            <th scope="col">Completed</th>
            <th scope="col">Handoffs</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day}>
              <th scope="row">{d.day.slice(5)}</th>
              <td>
                <span
                  className="bar"
                  style={{ width: `${(d.conversations / most) * 100}%` }}
                  aria-hidden="true"
                />
                {d.conversations}
              </td>
              <td className="visually-hidden">{d.completed}</td>
              <td className="visually-hidden">{d.handoffs}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
