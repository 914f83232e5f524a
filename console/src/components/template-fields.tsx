/**
 * Choosing a WhatsApp template and filling its placeholders (docs/outbound.md, "WhatsApp
 * templates"): the channel's approved templates, a field for each placeholder of the header and
 * body, and the body as the user will read it. Used where a template is sent: an agent's reply
 * once the window closed, and a broadcast. The choice and the message it makes:
 * `pages/inbox/template-draft.ts`.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { QueryState } from './query-state.tsx';
import { listTemplates, templatesKey } from '../pages/inbox/inbox-api.ts';
import {
  approvedFor,
  previewOf,
  templateKey,
  templateMessage,
} from '../pages/inbox/template-draft.ts';

/**
 * The template chosen among channel `channelId`'s approved ones, and its placeholders' texts.
 * The templates are read only while `enabled` (a WhatsApp channel: other platforms have none).
 */
export function useTemplateChoice(appId: string, channelId: string, enabled = true) {
  const templates = useQuery({
    queryKey: templatesKey(appId),
    queryFn: () => listTemplates(appId),
    enabled,
  });
  const [chosen, setChosen] = useState('');
  const [header, setHeader] = useState<string[]>([]);
  const [body, setBody] = useState<string[]>([]);
  const approved = approvedFor(templates.data ?? [], channelId);
  const template = approved.find((t) => templateKey(t) === chosen);
  const choose = (key: string) => {
    setChosen(key);
    setHeader([]);
    setBody([]);
  };
  return {
    templates,
    approved,
    chosen,
    template,
    header,
    body,
    setHeader,
    setBody,
    choose,
    /** The message, once every placeholder has its text. */
    message: template ? templateMessage(template, header, body) : undefined,
  };
}

export type TemplateChoice = ReturnType<typeof useTemplateChoice>;

/** The picker, the placeholders' fields and the preview; `id` names the preview. */
export function TemplateFields({
  choice,
  id,
  placeholderHint,
}: {
  choice: TemplateChoice;
  id: string;
  /** What a placeholder's field may hold, in words, shown under the fields. */
  placeholderHint?: string;
}) {
  const { templates, approved, template } = choice;
  const inputs = (label: string, count: number, values: string[], set: (v: string[]) => void) =>
    Array.from({ length: count }, (_, i) => (
      <label key={`${label}-${i}`}>
        {label} {`{{${i + 1}}}`}
        <input
          value={values[i] ?? ''}
          onChange={(e) => set(Object.assign([...values], { [i]: e.target.value }))}
        />
      </label>
    ));
  return (
    <>
      <QueryState
        query={templates}
        failed="Could not load the templates."
        empty="This channel has no approved template: a builder syncs them from the WhatsApp Business Account."
        isEmpty={approved.length === 0}
        onRetry={() => void templates.refetch()}
      />
      {approved.length > 0 && (
        <label>
          Template
          <select value={choice.chosen} onChange={(e) => choice.choose(e.target.value)}>
            <option value="">Choose a template…</option>
            {approved.map((t) => (
              <option key={templateKey(t)} value={templateKey(t)}>
                {t.name} ({t.language})
              </option>
            ))}
          </select>
        </label>
      )}
      {template && (
        <>
          {inputs('Header', template.parameters.header, choice.header, choice.setHeader)}
          {inputs('Body', template.parameters.body, choice.body, choice.setBody)}
          {placeholderHint && <small className="hint">{placeholderHint}</small>}
          <p className="hint" id={id}>
            They will read:
          </p>
          <p className="handoff__preview" aria-labelledby={id}>
            {previewOf(template, choice.body)}
          </p>
        </>
      )}
    </>
  );
}
