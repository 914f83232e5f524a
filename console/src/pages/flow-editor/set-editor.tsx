/** A `set` action: variables and their values (text template, number, true/false or null). */
import type { SetValue } from './flow-types.ts';
import { Field, TextField } from './field.tsx';

interface SetEditorProps {
  pointer: string;
  values: Record<string, SetValue>;
  onChange: (values: Record<string, SetValue>) => void;
}

type Kind = 'text' | 'number' | 'boolean' | 'null';

function kindOf(value: SetValue): Kind {
  if (value === null) return 'null';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'text';
}

function convert(value: SetValue, kind: Kind): SetValue {
  if (kind === 'null') return null;
  if (kind === 'number') return Number(value) || 0;
  if (kind === 'boolean') return value === true || value === 'true';
  return value === null ? '' : String(value);
}

export function SetEditor({ pointer, values, onChange }: SetEditorProps) {
  const entries = Object.entries(values);
  // Keys are renamed in place so the order (and so the form) does not jump.
  const rebuild = (i: number, key: string, value: SetValue): void =>
    onChange(Object.fromEntries(entries.map((e, j) => (j === i ? [key, value] : e))));
  return (
    <>
      {entries.map(([key, value], i) => (
        <div className="row" key={i}>
          <TextField
            label={`Variable ${i + 1} name`}
            pointer={`${pointer}/${key}`}
            value={key}
            onChange={(name) => rebuild(i, name, value)}
          />
          <Field label={`Variable ${i + 1} type`} pointer={`${pointer}/${key}/type`}>
            {(control) => (
              <select
                {...control}
                value={kindOf(value)}
                onChange={(e) => rebuild(i, key, convert(value, e.target.value as Kind))}
              >
                <option value="text">text</option>
                <option value="number">number</option>
                <option value="boolean">true / false</option>
                <option value="null">null</option>
              </select>
            )}
          </Field>
          {kindOf(value) === 'text' && (
            <TextField
              label={`Variable ${i + 1} value`}
              pointer={`${pointer}/${key}/value`}
              value={value as string}
              template
              onChange={(v) => rebuild(i, key, v)}
            />
          )}
          {kindOf(value) === 'number' && (
            <Field label={`Variable ${i + 1} value`} pointer={`${pointer}/${key}/value`}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  value={value as number}
                  onChange={(e) => rebuild(i, key, Number(e.target.value))}
                />
              )}
            </Field>
          )}
          {kindOf(value) === 'boolean' && (
            <Field label={`Variable ${i + 1} value`} pointer={`${pointer}/${key}/value`}>
              {(control) => (
                <select
                  {...control}
                  value={String(value)}
                  onChange={(e) => rebuild(i, key, e.target.value === 'true')}
                >
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              )}
            </Field>
          )}
          <button
            type="button"
            onClick={() => onChange(Object.fromEntries(entries.filter((_, j) => j !== i)))}
          >
            Remove variable {i + 1}
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          let n = entries.length + 1;
          while (Object.hasOwn(values, `var_${n}`)) n++;
          onChange({ ...values, [`var_${n}`]: '' });
        }}
      >
        Add variable
      </button>
    </>
  );
}
