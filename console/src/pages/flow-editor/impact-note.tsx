/** What publishing a candidate does to conversations in progress (`GET .../flow/impact`). */
import type { Impact } from '../../api/types.ts';

export function ImpactNote({ impact }: { impact: Impact }) {
  if (impact.conversations === 0) {
    return <p>No conversation waits in a state this version removes.</p>;
  }
  return (
    <div role="alert" className="warning-box">
      <p>
        <strong>
          {impact.conversations} conversation{impact.conversations === 1 ? '' : 's'} wait
          {impact.conversations === 1 ? 's' : ''} in states this version removes.
        </strong>{' '}
        They restart at the start state on their next message.
      </p>
      <ul>
        {impact.removed_states.map((r) => (
          <li key={r.state}>
            {r.state}: {r.conversations}
          </li>
        ))}
      </ul>
    </div>
  );
}
