/** A failed call on screen: its catalogue code and message, announced to screen readers. */
import { describeError } from '../../api/api-error.ts';

export function ErrorAlert({ error, what }: { error: unknown; what: string }) {
  const { code, message } = describeError(error);
  return (
    <div role="alert" className="ops-alert">
      <strong>{what}</strong> <code>{code}</code> {message}
    </div>
  );
}
