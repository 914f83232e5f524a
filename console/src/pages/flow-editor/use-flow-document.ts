/**
 * The flow being edited, held twice: as JSON text (what the JSON tab shows, kept exactly as typed
 * even when it does not parse) and as the last value that parsed (what the graph and the panel
 * show). A form edit rewrites the text; typing JSON updates the value when it parses.
 */
import { useCallback, useMemo, useState } from 'react';

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
}

const show = (value: unknown): string => JSON.stringify(value, null, 2);

export function useFlowDocument(initial: unknown, saved: unknown): FlowDocument {
  const [state, setState] = useState(() => ({
    text: show(initial),
    value: initial,
    parseError: null as string | null,
  }));
  const [savedText, setSavedText] = useState(() => JSON.stringify(saved));
  const setText = useCallback((text: string) => {
    setState((old) => {
      try {
        return { text, value: JSON.parse(text) as unknown, parseError: null };
      } catch (error) {
        return { ...old, text, parseError: (error as Error).message };
      }
    });
  }, []);
  const setValue = useCallback((value: unknown) => {
    setState({ text: show(value), value, parseError: null });
  }, []);
  const markSaved = useCallback((value: unknown) => setSavedText(JSON.stringify(value)), []);
  const dirty = useMemo(() => JSON.stringify(state.value) !== savedText, [state.value, savedText]);
  return { ...state, dirty, setText, setValue, markSaved };
}
