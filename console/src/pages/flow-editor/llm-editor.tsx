/**
 * An `llm` action: instructions, the prompt (its {{placeholders}} are sent as data), the output
 * (text, or JSON valid against a schema), the variable for the result, and the call's limits.
 */
import { type LlmCall, omit } from './flow-types.ts';
import { NumberField, SelectField, TextField } from './field.tsx';
import { JsonValueField } from './json-value-field.tsx';

interface LlmEditorProps {
  pointer: string;
  llm: LlmCall;
  onChange: (llm: LlmCall) => void;
}

const SCHEMA_START = {
  type: 'object',
  required: ['answer'],
  properties: { answer: { type: 'string' } },
};

export function LlmEditor({ pointer, llm, onChange }: LlmEditorProps) {
  type Optional = 'system' | 'output' | 'model' | 'max_tokens' | 'temperature' | 'timeout_ms';
  const optional = <K extends Optional>(key: K, value: LlmCall[K] | undefined) =>
    onChange(value === undefined ? (omit(llm, key) as LlmCall) : { ...llm, [key]: value });
  const output = llm.output ?? 'text';
  return (
    <>
      <TextField
        label="Instructions (system)"
        pointer={`${pointer}/system`}
        value={llm.system}
        multiline
        hint="No {{placeholders}} here: values go in the prompt, where they are sent as data."
        onChange={(system) => optional('system', system === '' ? undefined : system)}
      />
      <TextField
        label="Prompt"
        pointer={`${pointer}/prompt`}
        value={llm.prompt}
        multiline
        hint="Each {{value}} reaches the model inside a data block, never as instructions."
        template
        onChange={(prompt) => onChange({ ...llm, prompt })}
      />
      <SelectField
        label="Output"
        pointer={`${pointer}/output`}
        value={output === 'text' ? 'text' : 'json'}
        options={[
          { value: 'text', label: 'text' },
          { value: 'json', label: 'JSON valid against a schema' },
        ]}
        onChange={(kind) => optional('output', kind === 'text' ? undefined : SCHEMA_START)}
      />
      {output !== 'text' && (
        <JsonValueField
          label="Output JSON Schema"
          pointer={`${pointer}/output`}
          value={output}
          onChange={(schema) => optional('output', (schema as LlmCall['output']) ?? undefined)}
        />
      )}
      <TextField
        label="Store the result in variable"
        pointer={`${pointer}/store`}
        value={llm.store}
        onChange={(store) => onChange({ ...llm, store })}
      />
      <TextField
        label="Model"
        pointer={`${pointer}/model`}
        value={llm.model}
        hint="Empty: the service's LLM_MODEL."
        onChange={(model) => optional('model', model === '' ? undefined : model)}
      />
      <NumberField
        label="Max tokens of the answer"
        pointer={`${pointer}/max_tokens`}
        value={llm.max_tokens}
        hint="Empty: 256."
        onChange={(n) => optional('max_tokens', n)}
      />
      <NumberField
        label="Temperature"
        pointer={`${pointer}/temperature`}
        value={llm.temperature}
        hint="Empty: 0.2."
        onChange={(n) => optional('temperature', n)}
      />
      <NumberField
        label="Timeout (ms, 500 to 60000)"
        pointer={`${pointer}/timeout_ms`}
        value={llm.timeout_ms}
        hint="Empty: 10000 ms, the repair attempt included."
        onChange={(n) => optional('timeout_ms', n)}
      />
    </>
  );
}
