/**
 * "The answer goes to": a state of the bot's published flow that waits for an answer, where the
 * user's answer to a message the bot wrote first goes (`flow_state`; docs/outbound.md, "The
 * answer goes to a state"). Shown only when the flow has such a state.
 */
import { answerStates } from './answer-states.ts';

export function AnswerStateField({
  flow,
  value,
  onChange,
  label = 'The answer goes to',
}: {
  /** The bot's published flow (absent while it loads). */
  flow: unknown;
  value: string;
  onChange: (state: string) => void;
  label?: string;
}) {
  const states = answerStates(flow);
  if (states.length === 0) return null;
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">where the conversation is</option>
        {states.map((name) => (
          <option key={name} value={name}>
            state {name}
          </option>
        ))}
      </select>
    </label>
  );
}
