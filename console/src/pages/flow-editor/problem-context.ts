/**
 * What every form control of the side panel needs without passing it down each level: the
 * validation messages by JSON Pointer and whether the flow shown may be edited.
 */
import { createContext, useContext } from 'react';

export interface EditorContextValue {
  problems: ReadonlyMap<string, string[]>;
  warnings: ReadonlyMap<string, string[]>;
  readOnly: boolean;
}

export const EditorContext = createContext<EditorContextValue>({
  problems: new Map(),
  warnings: new Map(),
  readOnly: false,
});

/** Problem and warning messages for the value at `pointer` exactly. */
export function useFindingsAt(pointer: string): { problems: string[]; warnings: string[] } {
  const { problems, warnings } = useContext(EditorContext);
  return { problems: problems.get(pointer) ?? [], warnings: warnings.get(pointer) ?? [] };
}
