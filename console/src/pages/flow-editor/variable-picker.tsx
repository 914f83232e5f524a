/**
 * Inserts one of the flow's variables into a template field as `{{name}}`: a button opens the
 * list of the flow's variables, choosing one puts it where the caret is (at the end when the
 * field was never focused) and brings the caret back after it. A menu button rather than a select,
 * so that moving through the choices with the keyboard inserts nothing (WCAG 3.2.2); Escape closes
 * it, and so does leaving it.
 */
import { useId, useRef, useState, type RefObject } from 'react';
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
function insertPlaceholder(
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
  const [open, setOpen] = useState(false);
  const menu = useId();
  const button = useRef<HTMLButtonElement>(null);
  const insert = (name: string): void => {
    const field = target.current;
    const start = field?.selectionStart ?? value.length;
    const end = field?.selectionEnd ?? start;
    const next = insertPlaceholder(value, name, start, end);
    setOpen(false);
    onChange(next.value);
    // After React has shown the new value: the caret goes after the placeholder.
    requestAnimationFrame(() => {
      field?.focus();
      field?.setSelectionRange(next.caret, next.caret);
    });
  };
  return (
    <div
      className="variable-picker"
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setOpen(false);
      }}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !open) return;
        e.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }}
    >
      <button
        ref={button}
        type="button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menu : undefined}
        onClick={() => setOpen(!open)}
      >
        Insert a variable…
      </button>
      {open && (
        <ul
          id={menu}
          role="menu"
          aria-label={`Variables for ${label.replace(/^Insert a variable into /, '')}`}
        >
          {variables.map((name) => (
            <li key={name} role="none">
              <button type="button" role="menuitem" onClick={() => insert(name)}>
                {`{{${name}}}`}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
