/**
 * The flow being edited, held twice: as JSON text (what the JSON tab shows, kept exactly as typed
 * even when it does not parse) and as the last value that parsed (what the graph and the panel
 * show). A form edit rewrites the text; typing JSON updates the value when it parses. Every change
 * of the value is a step of its history (`flow-history.ts`): `undo` and `redo` move along it.
 */
import { useCallback, useMemo, useState } from 'react';
import { record, redo, startHistory, undo, type History } from './flow-history.ts';

export interface FlowDocument {
  text: string;
  /** The last JSON that parsed. */
  value: unknown;
  /** Why `text` does not parse, or null. */
  parseError: string | null;
  /** Whether `value` differs from the last saved one. */
  dirty: boolean;
  setText: (text: string) => void;
  setValue: (value: unknown) => void;
  markSaved: (value: unknown) => void;
  canUndo: boolean;
  canRedo: boolean;
  undo: () => void;
  redo: () => void;
}

interface DocumentState {
  text: string;
  history: History<unknown>;
  parseError: string | null;
}

const show = (value: unknown): string => JSON.stringify(value, null, 2);

/** The document at `history`'s present, its text written from the value. */
const at = (history: History<unknown>): DocumentState => ({
  text: show(history.present),
  history,
  parseError: null,
});

export function useFlowDocument(initial: unknown, saved: unknown): FlowDocument {
  const [state, setState] = useState<DocumentState>(() => at(startHistory(initial)));
  const [savedText, setSavedText] = useState(() => JSON.stringify(saved));
  const setText = useCallback((text: string) => {
    setState((old) => {
      try {
        const value = JSON.parse(text) as unknown;
        return { text, history: record(old.history, value, Date.now()), parseError: null };
      } catch (error) {
        return { ...old, text, parseError: (error as Error).message };
      }
    });
  }, []);
  const setValue = useCallback((value: unknown) => {
    setState((old) => at(record(old.history, value, Date.now())));
  }, []);
  const markSaved = useCallback((value: unknown) => setSavedText(JSON.stringify(value)), []);
  const back = useCallback(() => setState((old) => at(undo(old.history))), []);
  const forward = useCallback(() => setState((old) => at(redo(old.history))), []);
  const value = state.history.present;
  const dirty = useMemo(() => JSON.stringify(value) !== savedText, [value, savedText]);
  return {
    text: state.text,
    value,
    parseError: state.parseError,
    dirty,
    setText,
    setValue,
    markSaved,
    canUndo: state.history.past.length > 0,
    canRedo: state.history.future.length > 0,
    undo: back,
    redo: forward,
  };
}
