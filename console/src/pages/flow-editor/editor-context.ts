/**
 * What every form control of the side panel needs without passing it down each level: the
 * validation messages by JSON Pointer, whether the flow shown may be edited, and the flow's
 * variables (for the pickers of templates and conditions).
 */
import { createContext, useContext } from 'react';

export interface EditorContextValue {
  problems: ReadonlyMap<string, string[]>;
  warnings: ReadonlyMap<string, string[]>;
  readOnly: boolean;
  /** The flow's variables (`flowVariables`), in name order. */
  variables: readonly string[];
}

export const EditorContext = createContext<EditorContextValue>({
  problems: new Map(),
  warnings: new Map(),
  readOnly: false,
  variables: [],
});

/** Problem and warning messages for the value at `pointer` exactly. */
export function useFindingsAt(pointer: string): { problems: string[]; warnings: string[] } {
  const { problems, warnings } = useContext(EditorContext);
  return { problems: problems.get(pointer) ?? [], warnings: warnings.get(pointer) ?? [] };
}

/** The flow's variables, for a picker. */
export function useFlowVariables(): readonly string[] {
  return useContext(EditorContext).variables;
}
