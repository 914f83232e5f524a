/** A `send` action: its text, then either buttons or a list, plus an image and a document. */
import { type Send, omit } from './flow-types.ts';
import { ButtonsEditor } from './buttons-editor.tsx';
import { Field, TextField } from './field.tsx';
import { ListEditor } from './list-editor.tsx';
import { MediaEditor } from './media-editor.tsx';

interface SendEditorProps {
  pointer: string;
  send: Send;
  onChange: (send: Send) => void;
}

type Options = 'none' | 'buttons' | 'list';

export function SendEditor({ pointer, send, onChange }: SendEditorProps) {
  const options: Options = send.buttons ? 'buttons' : send.list ? 'list' : 'none';
  const setOptions = (next: Options): void => {
    const rest = omit(send, 'buttons', 'list');
    // Two buttons: a choice has at least two sides.
    if (next === 'buttons') {
      onChange({
        ...rest,
        buttons: [
          { id: 'option_1', title: 'Option 1' },
          { id: 'option_2', title: 'Option 2' },
        ],
      });
    } else if (next === 'list') {
      onChange({
        ...rest,
        list: { button: 'Options', sections: [{ rows: [{ id: 'row_1', title: 'Row 1' }] }] },
      });
    } else onChange(rest);
  };
  return (
    <>
      <TextField
        label="Message text"
        pointer={`${pointer}/text`}
        value={send.text}
        multiline
        hint="{{variable}} inserts a variable's value."
        template
        onChange={(text) => {
          const rest = omit(send, 'text');
          onChange(text === '' ? rest : { ...send, text });
        }}
      />
      <Field label="Options to press" pointer={`${pointer}/options`}>
        {(control) => (
          <select
            {...control}
            value={options}
            onChange={(e) => setOptions(e.target.value as Options)}
          >
            <option value="none">None</option>
            <option value="buttons">Buttons (up to 3)</option>
            <option value="list">List (up to 10 rows)</option>
          </select>
        )}
      </Field>
      {send.buttons && (
        <ButtonsEditor
          pointer={`${pointer}/buttons`}
          buttons={send.buttons}
          onChange={(buttons) => onChange({ ...send, buttons })}
        />
      )}
      {send.list && (
        <ListEditor
          pointer={`${pointer}/list`}
          list={send.list}
          onChange={(list) => onChange({ ...send, list })}
        />
      )}
      <MediaEditor
        kind="image"
        pointer={`${pointer}/image`}
        media={send.image}
        onChange={(image) => {
          const rest = omit(send, 'image');
          onChange(image ? { ...rest, image } : rest);
        }}
      />
      <MediaEditor
        kind="document"
        pointer={`${pointer}/document`}
        media={send.document}
        onChange={(document) => {
          const rest = omit(send, 'document');
          onChange(document ? { ...rest, document } : rest);
        }}
      />
    </>
  );
}
