/** An image or document of a send: URL, caption and (documents) file name; a checkbox adds it. */
import type { DocumentMedia } from './flow-types.ts';
import { TextField } from './field.tsx';

interface MediaEditorProps {
  kind: 'image' | 'document';
  pointer: string;
  media: DocumentMedia | undefined;
  onChange: (media: DocumentMedia | undefined) => void;
}

const optional = (value: string): string | undefined => (value === '' ? undefined : value);

export function MediaEditor({ kind, pointer, media, onChange }: MediaEditorProps) {
  const title = kind === 'image' ? 'Image' : 'Document';
  return (
    <fieldset className="sub">
      <legend>
        <label>
          <input
            type="checkbox"
            checked={media !== undefined}
            onChange={(e) => onChange(e.target.checked ? { url: 'https://' } : undefined)}
          />{' '}
          {title}
        </label>
      </legend>
      {media && (
        <>
          <TextField
            label={`${title} URL`}
            pointer={`${pointer}/url`}
            value={media.url}
            onChange={(url) => onChange({ ...media, url })}
          />
          <TextField
            label={`${title} caption`}
            pointer={`${pointer}/caption`}
            value={media.caption}
            onChange={(caption) => onChange({ ...media, caption: optional(caption) })}
          />
          {kind === 'document' && (
            <TextField
              label="Document file name"
              pointer={`${pointer}/filename`}
              value={media.filename}
              onChange={(filename) => onChange({ ...media, filename: optional(filename) })}
            />
          )}
        </>
      )}
    </fieldset>
  );
}
