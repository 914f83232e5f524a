/** A `handoff` action: what the user is told, the inbox queue, and the state a timeout enters. */
import { type HandoffStep, omit } from './flow-types.ts';
import { SelectField, TextField } from './field.tsx';

interface HandoffEditorProps {
  pointer: string;
  handoff: HandoffStep;
  onChange: (handoff: HandoffStep) => void;
  /** The flow's states, which the fallback is chosen from. */
  stateNames: string[];
}

export function HandoffEditor({ pointer, handoff, onChange, stateNames }: HandoffEditorProps) {
  // A fallback naming no state (typed in the JSON) stays listed, so the problem shows at its field.
  const options = stateNames.includes(handoff.fallback)
    ? stateNames
    : [handoff.fallback, ...stateNames];
  return (
    <>
      <TextField
        label="Message to the user"
        pointer={`${pointer}/message`}
        value={handoff.message}
        multiline
        onChange={(message) => {
          const rest = omit(handoff, 'message');
          onChange(message === '' ? rest : { ...rest, message });
        }}
      />
      <TextField
        label="Queue"
        pointer={`${pointer}/queue`}
        value={handoff.queue}
        hint="Empty: no queue."
        onChange={(queue) => {
          const rest = omit(handoff, 'queue');
          onChange(queue === '' ? rest : { ...rest, queue });
        }}
      />
      <SelectField
        label="Fallback state (entered when no agent claims the conversation in time)"
        pointer={`${pointer}/fallback`}
        value={handoff.fallback}
        options={options}
        onChange={(fallback) => onChange({ ...handoff, fallback })}
      />
    </>
  );
}
