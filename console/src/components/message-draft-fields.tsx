/**
 * The fields of a message being written to a user (an agent's reply, or the bot writing first):
 * what kind, then its text and buttons, or its URL, caption and file name. The draft and the
 * message it stands for: `pages/inbox/reply-draft.ts`.
 */
import { KINDS, type Draft } from '../pages/inbox/reply-draft.ts';

export function MessageDraftFields({
  draft,
  set,
  textLabel,
}: {
  draft: Draft;
  set: (field: keyof Draft) => (value: string) => void;
  /** The text field's label ("Reply", "Message"). */
  textLabel: string;
}) {
  const media = draft.kind === 'image' || draft.kind === 'document';
  return (
    <>
      <label>
        Send as
        <select value={draft.kind} onChange={(e) => set('kind')(e.target.value)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {media ? (
        <>
          <label>
            {draft.kind === 'image' ? 'Image URL' : 'Document URL'}
            <input
              type="url"
              value={draft.url}
              onChange={(e) => set('url')(e.target.value)}
              placeholder="https://"
            />
          </label>
          {draft.kind === 'document' ? (
            <label>
              File name
              <input value={draft.filename} onChange={(e) => set('filename')(e.target.value)} />
            </label>
          ) : null}
          <label>
            Caption
            <input value={draft.caption} onChange={(e) => set('caption')(e.target.value)} />
          </label>
        </>
      ) : (
        <label>
          {textLabel}
          <textarea value={draft.text} onChange={(e) => set('text')(e.target.value)} />
        </label>
      )}
      {draft.kind === 'button' ? (
        <label>
          Buttons, one title a line
          <textarea value={draft.buttons} onChange={(e) => set('buttons')(e.target.value)} />
        </label>
      ) : null}
    </>
  );
}
