/** A `choose_language` action: the prompt, the languages offered and the list button's label. */
import { type ChooseLanguage, omit } from './flow-types.ts';
import { TextField } from './field.tsx';

interface LanguageEditorProps {
  pointer: string;
  choose: ChooseLanguage;
  onChange: (choose: ChooseLanguage) => void;
}

export function LanguageEditor({ pointer, choose, onChange }: LanguageEditorProps) {
  const options = Array.isArray(choose.options) ? choose.options : [];
  return (
    <>
      <TextField
        label="Prompt"
        pointer={`${pointer}/prompt`}
        value={choose.prompt}
        onChange={(prompt) => onChange({ ...choose, prompt })}
      />
      <TextField
        label="List button label (more than 3 languages)"
        pointer={`${pointer}/button`}
        value={choose.button}
        placeholder="Language"
        onChange={(button) => {
          const rest = omit(choose, 'button');
          onChange(button === '' ? rest : { ...rest, button });
        }}
      />
      <fieldset className="sub">
        <legend>Languages (2 to 10)</legend>
        {options.map((option, i) => (
          <div className="row" key={i}>
            <TextField
              label={`Language ${i + 1} code`}
              pointer={`${pointer}/options/${i}/code`}
              value={option.code}
              onChange={(code) =>
                onChange({
                  ...choose,
                  options: options.map((o, j) => (j === i ? { ...o, code } : o)),
                })
              }
            />
            <TextField
              label={`Language ${i + 1} title`}
              pointer={`${pointer}/options/${i}/title`}
              value={option.title}
              onChange={(title) =>
                onChange({
                  ...choose,
                  options: options.map((o, j) => (j === i ? { ...o, title } : o)),
                })
              }
            />
            <button
              type="button"
              onClick={() => onChange({ ...choose, options: options.filter((_, j) => j !== i) })}
            >
              Remove language {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() => onChange({ ...choose, options: [...options, { code: '', title: '' }] })}
        >
          Add language
        </button>
      </fieldset>
    </>
  );
}
