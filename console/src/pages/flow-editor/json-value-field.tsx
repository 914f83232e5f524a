/**
 * A textarea holding any JSON value (an HTTP body, a condition). Text that does not parse stays
 * in the box, marked invalid, and is not written into the flow until it parses.
 */
import { useState } from 'react';
import { Field } from './field.tsx';

interface JsonValueFieldProps {
  label: string;
  pointer: string;
  value: unknown;
  onChange: (value: unknown) => void;
  /** What an empty box means; absent: empty is not allowed. */
  emptyMeans?: string;
}

const show = (value: unknown): string =>
  value === undefined ? '' : JSON.stringify(value, null, 2);

export function JsonValueField({
  label,
  pointer,
  value,
  onChange,
  emptyMeans,
}: JsonValueFieldProps) {
  const [text, setText] = useState(() => show(value));
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(value);
  // A change from elsewhere (the JSON tab, an undo) replaces the text; our own edits do not.
  if (shown !== value) {
    setShown(value);
    setText(show(value));
    setError(null);
  }
  return (
    <Field
      label={label}
      pointer={pointer}
      hint={error ?? (emptyMeans ? `Empty: ${emptyMeans}.` : undefined)}
    >
      {(control) => (
        <textarea
          {...control}
          className="code"
          rows={3}
          aria-invalid={control['aria-invalid'] || error !== null}
          value={text}
          onChange={(e) => {
            const next = e.target.value;
            setText(next);
            if (next.trim() === '' && emptyMeans) {
              setError(null);
              setShown(undefined);
              onChange(undefined);
              return;
            }
            try {
              const parsed: unknown = JSON.parse(next);
              setError(null);
              setShown(parsed);
              onChange(parsed);
            } catch (cause) {
              setError(`Not JSON yet: ${(cause as Error).message}`);
            }
          }}
        />
      )}
    </Field>
  );
}
