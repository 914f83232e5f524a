/**
 * A conversation's flow variables: each name with its value as JSON, so a string, a number and
 * a list read differently. Shown by the conversation page and the test chat.
 */
import './variables-view.css';

export function VariablesView({ variables }: { variables: Record<string, unknown> | undefined }) {
  const entries = Object.entries(variables ?? {});
  if (entries.length === 0) return <p className="variables__empty">No variables set.</p>;
  return (
    <dl className="variables">
      {entries.map(([name, value]) => (
        <div key={name} className="variables__entry">
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            <code>{JSON.stringify(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
