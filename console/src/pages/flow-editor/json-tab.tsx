/**
 * The flow as JSON in CodeMirror 6. Typing hands the text up on every change; a change of `text`
 * from outside (an edit in the graph's panel) replaces the document. Text that does not parse is
 * kept as typed and the parse error is shown under it.
 */
import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

interface JsonTabProps {
  text: string;
  parseError: string | null;
  readOnly: boolean;
  onChange: (text: string) => void;
}

export function JsonTab({ text, parseError, readOnly, onChange }: JsonTabProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    if (!host.current) return undefined;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [
          basicSetup,
          json(),
          EditorState.readOnly.of(readOnly),
          EditorView.contentAttributes.of({
            // An explicit tab stop, so checkers see the scrolled region is reachable by keyboard.
            tabindex: '0',
            'aria-label': 'Flow JSON',
            'aria-describedby': 'json-status',
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChangeRef.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // Made once per mount and read-only mode, with the text of that moment; later texts arrive
    // through the effect below, so typing never rebuilds the editor (and loses the cursor).
  }, [readOnly]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== text)
      editor.dispatch({ changes: { from: 0, to: current.length, insert: text } });
  }, [text]);

  return (
    <div className="json-tab">
      <div ref={host} className="json-host" />
      <p id="json-status" role="status" className={parseError ? 'problem-text' : 'muted'}>
        {parseError
          ? `Not valid JSON: ${parseError}. The graph shows the last valid JSON.`
          : 'Valid JSON.'}
      </p>
    </div>
  );
}
