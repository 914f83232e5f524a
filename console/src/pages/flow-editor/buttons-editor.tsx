/** The one to three reply buttons of a send: id (what a press reports) and title. */
import type { Button } from './flow-types.ts';
import { TextField } from './field.tsx';

/** Buttons a send may carry (the platforms' limit). */
export const MAX_BUTTONS = 3;

interface ButtonsEditorProps {
  pointer: string;
  buttons: Button[];
  onChange: (buttons: Button[]) => void;
}

export function ButtonsEditor({ pointer, buttons, onChange }: ButtonsEditorProps) {
  const update = (i: number, patch: Partial<Button>): void =>
    onChange(buttons.map((b, j) => (j === i ? { ...b, ...patch } : b)));
  return (
    <fieldset className="sub">
      <legend>Buttons</legend>
      {buttons.map((button, i) => (
        <div className="row" key={i}>
          <TextField
            label={`Button ${i + 1} title`}
            pointer={`${pointer}/${i}/title`}
            value={button.title}
            onChange={(title) => update(i, { title })}
          />
          <TextField
            label={`Button ${i + 1} id`}
            pointer={`${pointer}/${i}/id`}
            value={button.id}
            onChange={(id) => update(i, { id })}
          />
          <button type="button" onClick={() => onChange(buttons.filter((_, j) => j !== i))}>
            Remove button {i + 1}
          </button>
        </div>
      ))}
      {buttons.length < MAX_BUTTONS && (
        <button
          type="button"
          onClick={() => {
            const n = buttons.length + 1;
            onChange([...buttons, { id: `option_${n}`, title: `Option ${n}` }]);
          }}
        >
          Add button
        </button>
      )}
    </fieldset>
  );
}
