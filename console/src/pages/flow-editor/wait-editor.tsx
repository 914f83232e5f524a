/** A state's `wait`: where the answer goes, what it must be, and what happens when it is not. */
import type { Expect, Wait } from './flow-types.ts';
import { NumberField, SelectField, TextField } from './field.tsx';

const EXPECTS: { value: Expect; label: string }[] = [
  { value: 'any', label: 'anything (default)' },
  { value: 'text', label: 'text' },
  { value: 'number', label: 'a number' },
  { value: 'email', label: 'an email address' },
  { value: 'phone', label: 'a phone number' },
  { value: 'choice', label: 'one of the options sent' },
];

interface WaitEditorProps {
  pointer: string;
  wait: Wait | undefined;
  stateNames: string[];
  onChange: (wait: Wait | undefined) => void;
}

/** `wait` with `key` set to `value`, or without `key` when `value` is empty. */
function without<K extends keyof Wait>(wait: Wait, key: K, value: Wait[K] | '' | undefined): Wait {
  const copy: Wait = { ...wait };
  if (value === '' || value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}

export function WaitEditor({ pointer, wait, stateNames, onChange }: WaitEditorProps) {
  return (
    <section aria-labelledby="wait-heading">
      <h3 id="wait-heading">Wait for an answer</h3>
      <label>
        <input
          type="checkbox"
          checked={wait !== undefined}
          onChange={(e) => onChange(e.target.checked ? { store: 'answer' } : undefined)}
        />{' '}
        This state waits for the user's answer
      </label>
      {wait && (
        <>
          <TextField
            label="Store the answer in variable"
            pointer={`${pointer}/store`}
            value={wait.store}
            onChange={(store) => onChange({ ...wait, store })}
          />
          <SelectField
            label="Expect"
            pointer={`${pointer}/expect`}
            value={wait.expect ?? 'any'}
            options={EXPECTS}
            onChange={(expect) =>
              onChange(without(wait, 'expect', expect === 'any' ? '' : (expect as Expect)))
            }
          />
          <TextField
            label="Pattern (regular expression, optional)"
            pointer={`${pointer}/pattern`}
            value={wait.pattern}
            onChange={(pattern) => onChange(without(wait, 'pattern', pattern))}
          />
          <TextField
            label="Retry prompt"
            pointer={`${pointer}/retry_prompt`}
            value={wait.retry_prompt}
            multiline
            hint="Sent when the answer is not valid; empty: a default per expect."
            onChange={(prompt) => onChange(without(wait, 'retry_prompt', prompt))}
          />
          <NumberField
            label="Max retries"
            pointer={`${pointer}/max_retries`}
            value={wait.max_retries}
            hint="Empty: 2."
            onChange={(n) => onChange(without(wait, 'max_retries', n))}
          />
          <SelectField
            label="On fail go to"
            pointer={`${pointer}/on_fail`}
            value={wait.on_fail}
            options={stateNames}
            empty="(keep asking)"
            onChange={(state) => onChange(without(wait, 'on_fail', state))}
          />
        </>
      )}
    </section>
  );
}
