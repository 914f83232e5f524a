// @ts-check
/**
 * How SheetJS parses a spreadsheet: dense sheets, cell text only (no formulas, styles, HTML or
 * VBA). Plain JavaScript so the spreadsheet worker, which starts without the TypeScript loader,
 * can import it; the knowledge bench's baseline reads with the same options.
 * @type {Readonly<import('xlsx').ParsingOptions>}
 */
export const SHEET_PARSE_OPTIONS = Object.freeze({
  dense: true,
  cellFormula: false,
  cellHTML: false,
  cellNF: false,
  cellStyles: false,
  cellText: true,
  cellDates: false,
  sheetStubs: false,
  bookVBA: false,
  bookDeps: false,
  bookFiles: false,
});
