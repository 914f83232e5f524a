/**
 * The flow editor's keys, when no text field has the focus (there the keys are the field's own):
 * Ctrl+Z undo, Ctrl+Shift+Z or Ctrl+Y redo (Cmd on a Mac), and for the selected state Delete or
 * Backspace (asks first), Ctrl+C copy, Ctrl+V paste a copy, Ctrl+D duplicate.
 */
import { useEffect, useRef } from 'react';

export interface EditorKeys {
  undo: () => void;
  redo: () => void;
  /** The selected state's, when one is selected. */
  remove?: () => void;
  copy?: () => void;
  paste: () => void;
  duplicate?: () => void;
}

/** Whether a key pressed in `target` belongs to it (typing) rather than to the editor. */
function inField(target: EventTarget | null): boolean {
  return (
    target instanceof Element &&
    target.closest('input, textarea, select, [contenteditable="true"], dialog') !== null
  );
}

export function useEditorKeys(enabled: boolean, keys: EditorKeys): void {
  // The latest handlers, without registering the listener again on every render.
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    if (!enabled) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || inField(event.target)) return;
      const k = current.current;
      const key = event.key.toLowerCase();
      const ctrl = event.ctrlKey || event.metaKey;
      let handled: (() => void) | undefined;
      if (ctrl && key === 'z' && !event.shiftKey) handled = k.undo;
      else if (ctrl && ((key === 'z' && event.shiftKey) || key === 'y')) handled = k.redo;
      else if (ctrl && key === 'c') handled = k.copy;
      else if (ctrl && key === 'v') handled = k.paste;
      else if (ctrl && key === 'd') handled = k.duplicate;
      else if (!ctrl && (key === 'delete' || key === 'backspace')) handled = k.remove;
      if (!handled) return;
      event.preventDefault();
      handled();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}
