/** Collection names as the server accepts them (src/shared/knowledge/names.ts). */

/** 1 to 128 letters, digits, `_`, `.` or `-`, starting with a letter or digit. */
export const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Why `name` cannot name a collection, or undefined when it can. */
export function collectionNameProblem(name: string): string | undefined {
  if (name === '') return 'Give the collection a name.';
  if (COLLECTION_NAME.test(name)) return undefined;
  return 'A collection name is 1 to 128 letters, digits, “_”, “.” or “-”, starting with a letter or digit.';
}
