/** An admin API failure shown to a person: its message and its code. */
import { ApiError } from '../api/api-error.ts';

export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const message = error instanceof Error ? error.message : 'something went wrong';
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <p role="alert" className="error">
      {message}
      {code !== undefined && <code className="code"> ({code})</code>}
    </p>
  );
}
