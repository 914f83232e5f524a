/**
 * Choosing a WhatsApp template and filling its placeholders (docs/outbound.md, "WhatsApp
 * templates"): the channel's approved templates, a field for each placeholder of the header and
 * body, the link of a media header, the address end of each URL button to fill, and the body as
 * the user will read it. Used where a template is sent: an agent's reply
 * once the window closed, and a broadcast. The choice and the message it makes:
 * `pages/inbox/template-draft.ts`.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { QueryState } from './query-state.tsx';
import { listTemplates, templatesKey } from '../pages/inbox/inbox-api.ts';
import {
  approvedFor,
  NO_FILLS,
  previewOf,
  templateKey,
  templateMessage,
  urlButtonsOf,
  type TemplateFills,
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
  const [fills, setFills] = useState<TemplateFills>(NO_FILLS);
  const approved = approvedFor(templates.data ?? [], channelId);
  const template = approved.find((t) => templateKey(t) === chosen);
  const choose = (key: string) => {
    setChosen(key);
    setFills(NO_FILLS);
  };
  /** Sets one of the fills: `fill('media')(link)`. */
  const fill =
    <K extends keyof TemplateFills>(field: K) =>
    (value: TemplateFills[K]) =>
      setFills((f) => ({ ...f, [field]: value }));
  return {
    templates,
    approved,
    chosen,
    template,
    fills,
    fill,
    choose,
    /** The message, once everything the template takes is given. */
    message: template ? templateMessage(template, fills) : undefined,
  };
}

export type TemplateChoice = ReturnType<typeof useTemplateChoice>;

/** `Body {{1}}`, `Body {{2}}`, …: one label per placeholder. */
const numbered = (part: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${part} {{${i + 1}}}`);

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
  const { templates, approved, template, fills, fill } = choice;
  const inputs = (labels: string[], values: string[], set: (v: string[]) => void) =>
    labels.map((label, i) => (
      <label key={label}>
        {label}
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
          {template.parameters.header_media && (
            <label>
              Header {template.parameters.header_media} (https link)
              <input
                type="url"
                value={fills.media}
                onChange={(e) => fill('media')(e.target.value)}
              />
            </label>
          )}
          {template.parameters.header_media === 'document' && (
            <label>
              Document file name (optional)
              <input value={fills.filename} onChange={(e) => fill('filename')(e.target.value)} />
            </label>
          )}
          {inputs(numbered('Header', template.parameters.header), fills.header, fill('header'))}
          {inputs(numbered('Body', template.parameters.body), fills.body, fill('body'))}
          {inputs(
            urlButtonsOf(template).map((b) => `Button “${b.text}”: ${b.url}`),
            fills.buttons,
            fill('buttons'),
          )}
          {placeholderHint && <small className="hint">{placeholderHint}</small>}
          <p className="hint" id={id}>
            They will read:
          </p>
          <p className="handoff__preview" aria-labelledby={id}>
            {previewOf(template, fills.body)}
          </p>
        </>
      )}
    </>
  );
}
