/**
 * Inserts one of the flow's variables into a template field as `{{name}}`, where the caret is
 * (at the end when the field was never focused), then puts the caret after it.
 */
import type { RefObject } from 'react';
import { useFlowVariables } from './editor-context.ts';

interface VariablePickerProps {
  /** Its accessible name: "Insert a variable into Message text". */
  label: string;
  /** The template's input or textarea. */
  target: RefObject<HTMLInputElement | HTMLTextAreaElement | null>;
  value: string;
  onChange: (value: string) => void;
}

/** `value` with `{{name}}` put in place of the selection [start, end); the caret after it. */
export function insertPlaceholder(
  value: string,
  name: string,
  start: number,
  end: number,
): { value: string; caret: number } {
  const placeholder = `{{${name}}}`;
  return {
    value: value.slice(0, start) + placeholder + value.slice(end),
    caret: start + placeholder.length,
  };
}

export function VariablePicker({ label, target, value, onChange }: VariablePickerProps) {
  const variables = useFlowVariables();
  const insert = (name: string): void => {
    const field = target.current;
    const start = field?.selectionStart ?? value.length;
    const end = field?.selectionEnd ?? start;
    const next = insertPlaceholder(value, name, start, end);
    onChange(next.value);
    // After React has shown the new value: the caret goes after the placeholder.
    requestAnimationFrame(() => {
      field?.focus();
      field?.setSelectionRange(next.caret, next.caret);
    });
  };
  return (
    <select
      className="variable-picker"
      aria-label={label}
      value=""
      onChange={(e) => {
        if (e.target.value !== '') insert(e.target.value);
      }}
    >
      <option value="">Insert a variable…</option>
      {variables.map((name) => (
        <option key={name} value={name}>
          {`{{${name}}}`}
        </option>
      ))}
    </select>
  );
}
