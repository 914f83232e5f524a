/** A `handoff` action: what the user is told, the inbox queue, and the state a timeout enters. */
import { type HandoffStep, omit } from './flow-types.ts';
import { TextField } from './field.tsx';

interface HandoffEditorProps {
  pointer: string;
  handoff: HandoffStep;
  onChange: (handoff: HandoffStep) => void;
}

export function HandoffEditor({ pointer, handoff, onChange }: HandoffEditorProps) {
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
      <TextField
        label="Fallback state"
        pointer={`${pointer}/fallback`}
        value={handoff.fallback}
        hint="Entered when no agent claims the conversation in time."
        onChange={(fallback) => onChange({ ...handoff, fallback })}
      />
    </>
  );
}
