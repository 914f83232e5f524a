/** A plain-text table for the benches' reports: the first column left-aligned, the numbers right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((r) => r[column]!.length)));
  const cell = (text: string, column: number): string =>
    column === 0 ? text.padEnd(widths[column]!) : text.padStart(widths[column]!);
  return rows.map((row) => row.map(cell).join('  ')).join('\n');
}
