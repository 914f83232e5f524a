/**
 * The flow's own fields: the start state, reset keywords, the language its texts are in, its
 * intents, how free text is matched, and its llm steps' guardrails.
 */
import { useState } from 'react';
import { type Flow, omit } from './flow-types.ts';
import { SelectField, TextField } from './field.tsx';
import { IntentsEditor } from './intents-editor.tsx';
import { LlmGuardrailsEditor } from './llm-guardrails-editor.tsx';
import { MatchingEditor } from './matching-editor.tsx';

interface FlowSettingsProps {
  appId: string;
  flow: Flow;
  onChange: (flow: Flow) => void;
}

const split = (text: string): string[] =>
  text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');

export function FlowSettings({ appId, flow, onChange }: FlowSettingsProps) {
  const names = Object.keys(flow.states);
  const words = flow.reset_keywords ?? [];
  // The box keeps what is typed ("reset, "), and follows changes made elsewhere (the JSON tab).
  const [keywords, setKeywords] = useState(words.join(', '));
  if (split(keywords).join('\u0000') !== words.join('\u0000')) setKeywords(words.join(', '));
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Flow</h2>
      <p className="muted">Select a state in the graph or the list to edit it.</p>
      <SelectField
        label="Start state"
        pointer="/start"
        value={flow.start}
        options={names.includes(flow.start) ? names : [flow.start, ...names]}
        onChange={(start) => onChange({ ...flow, start })}
      />
      <TextField
        label="Reset keywords (comma separated)"
        pointer="/reset_keywords"
        value={keywords}
        onChange={(text) => {
          setKeywords(text);
          const rest = omit(flow, 'reset_keywords');
          const next = split(text);
          onChange(next.length > 0 ? { ...rest, reset_keywords: next } : rest);
        }}
      />
      <TextField
        label="Language of the texts (e.g. en)"
        pointer="/fallback_language"
        value={flow.fallback_language}
        onChange={(lang) => {
          const rest = omit(flow, 'fallback_language');
          onChange(lang === '' ? rest : { ...rest, fallback_language: lang });
        }}
      />
      <IntentsEditor
        intents={Array.isArray(flow.intents) ? flow.intents : []}
        stateNames={names}
        onChange={(intents) => {
          const rest = omit(flow, 'intents');
          onChange(intents.length > 0 ? { ...rest, intents } : rest);
        }}
      />
      <MatchingEditor
        matching={flow.matching}
        onChange={(matching) => {
          const rest = omit(flow, 'matching');
          onChange(matching ? { ...rest, matching } : rest);
        }}
      />
      <LlmGuardrailsEditor
        appId={appId}
        guardrails={flow.llm}
        onChange={(llm) => {
          const rest = omit(flow, 'llm');
          onChange(llm ? { ...rest, llm } : rest);
        }}
      />
    </section>
  );
}
