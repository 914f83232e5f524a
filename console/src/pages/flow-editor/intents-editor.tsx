/**
 * The flow's intents (docs/flows.md, "Understanding free text"): each a name, a description for
 * people, example phrases, and optionally what it does from any state (enter a state, or hand
 * the conversation to a person).
 */
import { type Intent, type IntentGlobal, omit } from './flow-types.ts';
import { SelectField, TextField } from './field.tsx';
import { PhrasesField } from './phrases-field.tsx';

interface IntentsEditorProps {
  intents: Intent[];
  stateNames: string[];
  onChange: (intents: Intent[]) => void;
}

type Reach = 'here' | 'to' | 'handoff';

const reachOf = (global: IntentGlobal | undefined): Reach =>
  global === undefined ? 'here' : 'to' in global ? 'to' : 'handoff';

export function IntentsEditor({ intents, stateNames, onChange }: IntentsEditorProps) {
  const update = (i: number, next: Intent): void =>
    onChange(intents.map((intent, j) => (j === i ? next : intent)));
  return (
    <section aria-labelledby="intents-heading">
      <h3 id="intents-heading">Intents</h3>
      <p className="muted">
        What users may mean anywhere in the flow. A transition tests one with the condition “the
        user means an intent”.
      </p>
      {intents.map((intent, i) => {
        const base = `/intents/${i}`;
        const reach = reachOf(intent.global);
        const handoff = intent.global && 'handoff' in intent.global ? intent.global.handoff : {};
        return (
          <fieldset className="action" key={i}>
            <legend>Intent {i + 1}</legend>
            <TextField
              label={`Intent ${i + 1} name`}
              pointer={`${base}/name`}
              value={intent.name}
              onChange={(name) => update(i, { ...intent, name })}
            />
            <TextField
              label={`Intent ${i + 1} description`}
              pointer={`${base}/description`}
              value={intent.description}
              onChange={(d) =>
                update(i, d === '' ? omit(intent, 'description') : { ...intent, description: d })
              }
            />
            <PhrasesField
              label={`Intent ${i + 1} example phrases (one a line)`}
              pointer={`${base}/examples`}
              phrases={intent.examples}
              onChange={(examples) => update(i, { ...intent, examples: examples ?? [] })}
            />
            <SelectField
              label={`Intent ${i + 1} from any state`}
              pointer={`${base}/global`}
              value={reach}
              options={[
                { value: 'here', label: 'no: only where a transition tests it' },
                { value: 'to', label: 'yes: go to a state' },
                { value: 'handoff', label: 'yes: hand off to a person' },
              ]}
              onChange={(value) => {
                const rest = omit(intent, 'global');
                if (value === 'here') update(i, rest);
                else if (value === 'to')
                  update(i, { ...rest, global: { to: stateNames[0] ?? '' } });
                else update(i, { ...rest, global: { handoff: {} } });
              }}
            />
            {intent.global && 'to' in intent.global && (
              <SelectField
                label={`Intent ${i + 1} goes to`}
                pointer={`${base}/global/to`}
                value={intent.global.to}
                options={
                  stateNames.includes(intent.global.to)
                    ? stateNames
                    : [intent.global.to, ...stateNames]
                }
                onChange={(to) => update(i, { ...intent, global: { to } })}
              />
            )}
            {reach === 'handoff' && (
              <TextField
                label={`Intent ${i + 1} handoff message`}
                pointer={`${base}/global/handoff/message`}
                value={handoff.message}
                onChange={(message) => {
                  const kept = omit(handoff, 'message');
                  update(i, {
                    ...intent,
                    global: { handoff: message === '' ? kept : { ...kept, message } },
                  });
                }}
              />
            )}
            <div className="action-tools">
              <button type="button" onClick={() => onChange(intents.filter((_, j) => j !== i))}>
                Remove intent {i + 1}
              </button>
            </div>
          </fieldset>
        );
      })}
      <button
        type="button"
        onClick={() =>
          onChange([
            ...intents,
            { name: `intent_${intents.length + 1}`, examples: ['an example phrase'] },
          ])
        }
      >
        Add intent
      </button>
    </section>
  );
}
