/**
 * A failed call on screen: what failed, its catalogue code and message, announced to screen
 * readers. Its style is global (styles.css): every page shows failures alike.
 */
import { describeError } from '../api/api-error.ts';

export function ErrorAlert({ error, what }: { error: unknown; what: string }) {
  const { code, message } = describeError(error);
  return (
    <div role="alert" className="error-alert">
      <strong>{what}</strong> <code>{code}</code> {message}
    </div>
  );
}
