/**
 * A transition's condition, three ways: always (no `when`), "the answer is option X" (the common
 * case after buttons or a list), or any JSON Logic typed as JSON.
 */
import { optionOfCondition, stateOptions } from './condition-text.ts';
import type { Condition, FlowState } from './flow-types.ts';
import { Field } from './field.tsx';
import { JsonValueField } from './json-value-field.tsx';

interface ConditionEditorProps {
  pointer: string;
  index: number;
  state: FlowState;
  when: Condition | undefined;
  onChange: (when: Condition | undefined) => void;
}

type Mode = 'always' | 'option' | 'logic';

export function ConditionEditor({ pointer, index, state, when, onChange }: ConditionEditorProps) {
  const options = stateOptions(state);
  const option = optionOfCondition(when, state);
  const mode: Mode = when === undefined ? 'always' : option !== null ? 'option' : 'logic';
  const variable = state.wait?.store ?? 'input';
  const forOption = (id: string): Condition => ({ '==': [{ var: variable }, id] });
  return (
    <>
      <Field label={`Transition ${index + 1} condition`} pointer={`${pointer}/mode`}>
        {(control) => (
          <select
            {...control}
            value={mode}
            onChange={(e) => {
              const next = e.target.value as Mode;
              if (next === 'always') onChange(undefined);
              else if (next === 'option') onChange(forOption([...options.keys()][0] ?? ''));
              else onChange(when ?? { '!!': [{ var: variable }] });
            }}
          >
            <option value="always">always (else)</option>
            <option value="option" disabled={options.size === 0}>
              the answer is an option
            </option>
            <option value="logic">JSON Logic condition</option>
          </select>
        )}
      </Field>
      {mode === 'option' && (
        <Field label={`Transition ${index + 1} option`} pointer={pointer}>
          {(control) => (
            <select
              {...control}
              value={option ?? ''}
              onChange={(e) => onChange(forOption(e.target.value))}
            >
              {option !== null && !options.has(option) && (
                <option value={option}>{option} (not offered)</option>
              )}
              {[...options].map(([id, title]) => (
                <option key={id} value={id}>
                  {title} ({id})
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {mode === 'logic' && (
        <JsonValueField
          label={`Transition ${index + 1} JSON Logic`}
          pointer={pointer}
          value={when}
          onChange={(value) => onChange(value as Condition)}
        />
      )}
    </>
  );
}
