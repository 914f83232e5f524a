/**
 * The one to three reply buttons of a send: id (what a press reports), title, and the example
 * phrases free text is matched with by meaning.
 */
import { type Button, omit } from './flow-types.ts';
import { TextField } from './field.tsx';
import { PhrasesField } from './phrases-field.tsx';
import { retitle } from './option-edits.ts';

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
            onChange={(title) => onChange(retitle(buttons, i, title))}
          />
          <TextField
            label={`Button ${i + 1} id`}
            pointer={`${pointer}/${i}/id`}
            value={button.id}
            hint="What a press reports; it follows the title until typed here."
            onChange={(id) => update(i, { id })}
          />
          <PhrasesField
            label={`Button ${i + 1} example phrases (one a line)`}
            pointer={`${pointer}/${i}/examples`}
            phrases={button.examples}
            hint="Other ways users say it; free text close in meaning picks this button."
            onChange={(examples) =>
              onChange(
                buttons.map((b, j) =>
                  j !== i ? b : examples ? { ...b, examples } : omit(b, 'examples'),
                ),
              )
            }
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
