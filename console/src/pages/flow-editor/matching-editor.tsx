/**
 * How the flow matches free text by meaning (the flow's `matching`, docs/flows.md "Understanding
 * free text"): the least score and the margin over the second best, empty for the service's
 * defaults, and whether the LLM is asked when the scores leave a text unclear.
 */
import { type Matching, withField } from './flow-types.ts';
import { CheckboxField, NumberField } from './field.tsx';

interface MatchingEditorProps {
  matching: Matching | undefined;
  onChange: (matching: Matching | undefined) => void;
}

export function MatchingEditor({ matching, onChange }: MatchingEditorProps) {
  const now = matching ?? {};
  const set = <K extends keyof Matching>(key: K, value: Matching[K] | undefined) =>
    onChange(withField(now, key, value));
  return (
    <section aria-labelledby="matching-heading">
      <h3 id="matching-heading">Understanding free text</h3>
      <NumberField
        label="Least score to match an option or intent (0 to 1)"
        pointer="/matching/min_score"
        value={now.min_score}
        hint="Empty: the service's FLOW_MATCH_MIN_SCORE."
        onChange={(n) => set('min_score', n)}
      />
      <NumberField
        label="Lead over the second best (0 to 1)"
        pointer="/matching/margin"
        value={now.margin}
        hint="Empty: the service's FLOW_MATCH_MARGIN."
        onChange={(n) => set('margin', n)}
      />
      <CheckboxField
        label="Ask the LLM when the meaning is unclear"
        pointer="/matching/llm"
        hint="The user's text and the options are sent to the service's LLM, within the budgets below; its pick is shown in the test chat."
        checked={now.llm === true}
        onChange={(on) => set('llm', on ? true : undefined)}
      />
    </section>
  );
}
