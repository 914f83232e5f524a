/**
 * A labelled form control bound to one value of the flow (named by its JSON Pointer), showing the
 * validation findings at that pointer under it and marking itself invalid for assistive tech.
 */
import { useId, useRef, type ReactNode } from 'react';
import { useFindingsAt } from './editor-context.ts';
import { VariablePicker } from './variable-picker.tsx';

interface FieldProps {
  label: string;
  pointer: string;
  children: (control: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
    'data-pointer': string;
  }) => ReactNode;
  hint?: string;
}

export function Field({ label, pointer, children, hint }: FieldProps) {
  const id = useId();
  const { problems, warnings } = useFindingsAt(pointer);
  const messages = [...problems, ...warnings];
  const describedBy = messages.length > 0 || hint ? `${id}-note` : undefined;
  return (
    <div className={problems.length > 0 ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': problems.length > 0,
        'aria-describedby': describedBy,
        'data-pointer': pointer,
      })}
      {describedBy && (
        <div id={`${id}-note`} className="field-note">
          {hint && <span>{hint}</span>}
          {problems.map((m) => (
            <span key={`p${m}`} className="problem-text">
              {m}
            </span>
          ))}
          {warnings.map((m) => (
            <span key={`w${m}`} className="warning-text">
              {m}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}

interface TextFieldProps {
  label: string;
  pointer: string;
  value: string | undefined;
  onChange: (value: string) => void;
  multiline?: boolean;
  hint?: string;
  placeholder?: string;
  /** A template (`{{variable}}` placeholders): a picker inserts the flow's variables. */
  template?: boolean;
}

/** A text input (or textarea) for a string of the flow. */
export function TextField({
  label,
  pointer,
  value,
  onChange,
  multiline,
  hint,
  placeholder,
  template,
}: TextFieldProps) {
  const input = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  return (
    <Field label={label} pointer={pointer} hint={hint}>
      {(control) => (
        <>
          {multiline ? (
            <textarea
              {...control}
              ref={input}
              rows={3}
              value={value ?? ''}
              placeholder={placeholder}
              onChange={(e) => onChange(e.target.value)}
            />
          ) : (
            <input
              {...control}
              ref={input}
              type="text"
              value={value ?? ''}
              placeholder={placeholder}
              onChange={(e) => onChange(e.target.value)}
            />
          )}
          {template && (
            <VariablePicker
              label={`Insert a variable into ${label}`}
              target={input}
              value={value ?? ''}
              onChange={onChange}
            />
          )}
        </>
      )}
    </Field>
  );
}

interface NumberFieldProps {
  label: string;
  pointer: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  hint?: string;
}

/** A number input; empty means "not set" (the format's default applies). */
export function NumberField({ label, pointer, value, onChange, hint }: NumberFieldProps) {
  return (
    <Field label={label} pointer={pointer} hint={hint}>
      {(control) => (
        <input
          {...control}
          type="number"
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      )}
    </Field>
  );
}

interface CheckboxFieldProps {
  label: string;
  pointer: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: string;
}

/** A checkbox for a flag of the flow. */
export function CheckboxField({ label, pointer, checked, onChange, hint }: CheckboxFieldProps) {
  return (
    <Field label={label} pointer={pointer} hint={hint}>
      {(control) => (
        <input
          {...control}
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
        />
      )}
    </Field>
  );
}

interface SelectFieldProps {
  label: string;
  pointer: string;
  value: string | undefined;
  options: readonly (string | { value: string; label: string })[];
  onChange: (value: string) => void;
  /** A first option meaning "not set", with this label. */
  empty?: string;
}

/** A select over fixed options (state names, methods, expect kinds). */
export function SelectField({ label, pointer, value, options, onChange, empty }: SelectFieldProps) {
  return (
    <Field label={label} pointer={pointer}>
      {(control) => (
        <select {...control} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
          {empty !== undefined && <option value="">{empty}</option>}
          {options.map((o) => {
            const { value: v, label: l } = typeof o === 'string' ? { value: o, label: o } : o;
            return (
              <option key={v} value={v}>
                {l}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}
