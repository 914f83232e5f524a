/**
 * Example phrases (of an option or an intent) as a text box, one phrase a line; no phrase means
 * the field is absent. What is typed is kept as typed (a blank line while writing), and follows
 * changes made elsewhere (the JSON tab).
 */
import { useState } from 'react';
import { TextField } from './field.tsx';

interface PhrasesFieldProps {
  label: string;
  pointer: string;
  phrases: string[] | undefined;
  onChange: (phrases: string[] | undefined) => void;
  hint?: string;
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export function PhrasesField({ label, pointer, phrases, onChange, hint }: PhrasesFieldProps) {
  const list = Array.isArray(phrases) ? phrases : [];
  const [text, setText] = useState(list.join('\n'));
  if (lines(text).join('\u0000') !== list.join('\u0000')) setText(list.join('\n'));
  return (
    <TextField
      label={label}
      pointer={pointer}
      value={text}
      multiline
      hint={hint}
      onChange={(typed) => {
        setText(typed);
        const next = lines(typed);
        onChange(next.length > 0 ? next : undefined);
      }}
    />
  );
}
