/**
 * The bot's limits and guardrails for llm steps: the flow's `llm` (docs/flows.md), and the tokens
 * its steps used today against its daily budget.
 */
import { useQuery } from '@tanstack/react-query';
import { errorText } from '../../api/api-error.ts';
import { getLlmUsage } from './flow-api.ts';
import { type LlmGuardrails, withField } from './flow-types.ts';
import { CheckboxField, NumberField, TextField } from './field.tsx';

interface LlmGuardrailsEditorProps {
  appId: string;
  guardrails: LlmGuardrails | undefined;
  onChange: (guardrails: LlmGuardrails | undefined) => void;
}

export function LlmGuardrailsEditor({ appId, guardrails, onChange }: LlmGuardrailsEditorProps) {
  const now = guardrails ?? {};
  const usage = useQuery({ queryKey: ['llm-usage', appId], queryFn: () => getLlmUsage(appId) });
  const set = <K extends keyof LlmGuardrails>(key: K, value: LlmGuardrails[K] | undefined) =>
    onChange(withField(now, key, value));
  return (
    <section aria-labelledby="llm-heading">
      <h3 id="llm-heading">LLM steps</h3>
      {usage.data ? (
        <p role="status">
          Tokens used today ({usage.data.day}, UTC): {usage.data.tokens.toLocaleString('en')} of{' '}
          {usage.data.daily_budget.toLocaleString('en')}
        </p>
      ) : null}
      {usage.isError ? (
        <p role="alert">Could not read today’s token use: {errorText(usage.error)}</p>
      ) : null}
      <CheckboxField
        label="Mask phone numbers, emails and card numbers sent to the LLM"
        pointer="/llm/mask_pii"
        checked={now.mask_pii === true}
        onChange={(on) => set('mask_pii', on ? true : undefined)}
      />
      <TextField
        label="Keep the LLM to this topic"
        pointer="/llm/topic"
        value={now.topic}
        hint="Off-topic requests get BW_ERR_FLOW_LLM_OFF_TOPIC, so the flow takes its fallback."
        onChange={(topic) => set('topic', topic === '' ? undefined : topic)}
      />
      <NumberField
        label="Longest answer (characters)"
        pointer="/llm/max_answer_chars"
        value={now.max_answer_chars}
        onChange={(n) => set('max_answer_chars', n)}
      />
      <NumberField
        label="Tokens a day for this bot"
        pointer="/llm/daily_tokens"
        value={now.daily_tokens}
        hint="Empty: the service's FLOW_LLM_DAILY_TOKENS; a number can only lower it."
        onChange={(n) => set('daily_tokens', n)}
      />
      <NumberField
        label="Tokens a turn"
        pointer="/llm/turn_tokens"
        value={now.turn_tokens}
        hint="Empty: the service's FLOW_LLM_TURN_TOKENS."
        onChange={(n) => set('turn_tokens', n)}
      />
    </section>
  );
}
