// SheetJS's ES module build and its codepage tables, which the spreadsheet worker imports by path;
// the package's typings describe the same API under `xlsx`.
declare module 'xlsx/xlsx.mjs' {
  export * from 'xlsx';
}
declare module 'xlsx/dist/cpexcel.full.mjs' {
  export const utils: unknown;
}
