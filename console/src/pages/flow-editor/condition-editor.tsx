/**
 * A transition's condition, five ways: always (no `when`), "the answer is option X" (the common
 * case after buttons or a list), "the user means intent X" (`{"intent": X}`), rules on variables
 * (rules-editor.tsx: equals, contains, is set... all or any), or any JSON Logic typed as JSON.
 */
import { optionOfCondition, stateOptions } from './condition-text.ts';
import type { Condition, FlowState } from './flow-types.ts';
import { Field } from './field.tsx';
import { JsonValueField } from './json-value-field.tsx';
import { fromLogic, toLogic } from './condition-rules.ts';
import { RulesEditor } from './rules-editor.tsx';
import { optionCondition } from './option-edits.ts';

interface ConditionEditorProps {
  pointer: string;
  index: number;
  state: FlowState;
  when: Condition | undefined;
  /** The names of the flow's intents. */
  intents: string[];
  onChange: (when: Condition | undefined) => void;
}

type Mode = 'always' | 'option' | 'intent' | 'rules' | 'logic';

/** The intent a condition tests, when it is exactly `{"intent": name}`. */
function intentOf(when: Condition | undefined): string | null {
  if (when === null || typeof when !== 'object' || Array.isArray(when)) return null;
  const keys = Object.keys(when);
  const name = (when as { intent?: unknown }).intent;
  return keys.length === 1 && typeof name === 'string' ? name : null;
}

export function ConditionEditor({
  pointer,
  index,
  state,
  when,
  intents,
  onChange,
}: ConditionEditorProps) {
  const options = stateOptions(state);
  const option = optionOfCondition(when, state);
  const intent = intentOf(when);
  const rules = fromLogic(when);
  const mode: Mode =
    when === undefined
      ? 'always'
      : option !== null
        ? 'option'
        : intent !== null
          ? 'intent'
          : rules !== null
            ? 'rules'
            : 'logic';
  const variable = state.wait?.store ?? 'input';
  const forOption = (id: string): Condition => optionCondition(state, id);
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
              else if (next === 'intent') onChange({ intent: intents[0] ?? '' });
              else if (next === 'rules')
                onChange(
                  toLogic({
                    join: 'and',
                    rules: [{ variable, op: 'is_set', value: '' }],
                  }),
                );
              else onChange(when ?? { '!!': [{ var: variable }] });
            }}
          >
            <option value="always">always (else)</option>
            <option value="option" disabled={options.size === 0}>
              the answer is an option
            </option>
            <option value="intent" disabled={intents.length === 0}>
              the user means an intent
            </option>
            <option value="rules">rules on variables (equals, contains, is set…)</option>
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
      {mode === 'intent' && (
        <Field label={`Transition ${index + 1} intent`} pointer={`${pointer}/intent`}>
          {(control) => (
            <select
              {...control}
              value={intent ?? ''}
              onChange={(e) => onChange({ intent: e.target.value })}
            >
              {intent !== null && !intents.includes(intent) && (
                <option value={intent}>{intent} (not declared)</option>
              )}
              {intents.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {mode === 'rules' && rules && (
        <RulesEditor label={`Transition ${index + 1}`} rules={rules} onChange={onChange} />
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
