/**
 * A transition's condition built from rules (condition-rules.ts): per rule a variable (picked
 * from the flow's, or typed), what it is compared by, and a value; "all" or "any" of them.
 */
import { useId } from 'react';
import { OPERATORS, toLogic, type Rule, type Rules } from './condition-rules.ts';
import type { Condition } from './flow-types.ts';
import { useFlowVariables } from './editor-context.ts';

interface RulesEditorProps {
  /** `Transition 2`: the start of every field's label. */
  label: string;
  rules: Rules;
  onChange: (when: Condition) => void;
}

export function RulesEditor({ label, rules, onChange }: RulesEditorProps) {
  const id = useId();
  // The flow's variables, offered as the variable's choices.
  const variables = useFlowVariables();
  const set = (next: Rules) => onChange(toLogic(next));
  const setRule = (i: number, rule: Rule) =>
    set({ ...rules, rules: rules.rules.map((r, j) => (j === i ? rule : r)) });
  return (
    <div className="rules">
      <datalist id={`${id}-variables`}>
        {variables.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
      {rules.rules.length > 1 && (
        <p>
          <label htmlFor={`${id}-join`}>{label}: true when</label>{' '}
          <select
            id={`${id}-join`}
            value={rules.join}
            onChange={(e) => set({ ...rules, join: e.target.value as Rules['join'] })}
          >
            <option value="and">all rules hold</option>
            <option value="or">any rule holds</option>
          </select>
        </p>
      )}
      <ol>
        {rules.rules.map((rule, i) => {
          const named = `${label} rule ${i + 1}`;
          const needsValue = OPERATORS.find((o) => o.op === rule.op)?.needsValue ?? true;
          return (
            <li key={i}>
              <label htmlFor={`${id}-${i}-var`}>{named} variable</label>
              <input
                id={`${id}-${i}-var`}
                list={`${id}-variables`}
                value={rule.variable}
                onChange={(e) => setRule(i, { ...rule, variable: e.target.value })}
              />
              <label htmlFor={`${id}-${i}-op`}>{named} test</label>
              <select
                id={`${id}-${i}-op`}
                value={rule.op}
                onChange={(e) => setRule(i, { ...rule, op: e.target.value as Rule['op'] })}
              >
                {OPERATORS.map((o) => (
                  <option key={o.op} value={o.op}>
                    {o.label}
                  </option>
                ))}
              </select>
              {needsValue && (
                <>
                  <label htmlFor={`${id}-${i}-value`}>{named} value</label>
                  <input
                    id={`${id}-${i}-value`}
                    value={rule.value}
                    inputMode={rule.op === 'greater' || rule.op === 'less' ? 'decimal' : undefined}
                    onChange={(e) => setRule(i, { ...rule, value: e.target.value })}
                  />
                </>
              )}
              {rules.rules.length > 1 && (
                <button
                  type="button"
                  onClick={() => set({ ...rules, rules: rules.rules.filter((_, j) => j !== i) })}
                >
                  Remove {named.toLowerCase()}
                </button>
              )}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        onClick={() =>
          set({
            ...rules,
            rules: [
              ...rules.rules,
              { variable: rules.rules[0]?.variable ?? 'input', op: 'is_set', value: '' },
            ],
          })
        }
      >
        Add a rule to {label.toLowerCase()}
      </button>
    </div>
  );
}
