/** A text input with its label above it, its value held by the caller. */
import type { InputHTMLAttributes, ReactNode } from 'react';

export type TextFieldProps = {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>;

export function TextField({ id, label, value, onChange, ...input }: TextFieldProps) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input {...input} id={id} value={value} onChange={(e) => onChange(e.target.value)} />
    </>
  );
}
