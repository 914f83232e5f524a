/**
 * docs/errors.md lists every code of the catalogue, read at run time, so a code added to
 * src/shared/errors.ts without regenerating the docs fails here.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ERRORS_DOC, tableOf } from '../scripts/lib/errors-doc.ts';
import { ERRORS } from '../src/shared/errors.ts';

const REGENERATE = 'run `node --import tsx scripts/lib/errors-doc.ts`';

/** The table's rows as cells, whatever the column padding (a formatter may realign it). */
function rowsOf(table: string): string[][] {
  return table
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    )
    .filter((cells) => !cells.every((cell) => /^:?-+:?$/.test(cell)));
}

describe('docs/errors.md', () => {
  const table = tableOf(readFileSync(ERRORS_DOC, 'utf8'));
  const [header, ...rows] = rowsOf(table ?? '');
  const documented = new Map(rows.map((cells) => [cells[0]?.replace(/`/g, ''), cells]));

  it('when read, then it holds the generated table with its columns', () => {
    expect(table, `the table markers are missing: ${REGENERATE}`).to.be.a('string');
    expect(header).to.deep.equal(['code', 'HTTP status', 'retryable', 'meaning']);
  });

  it('when compared with the catalogue, then every code has a row', () => {
    const missing = Object.keys(ERRORS).filter((code) => !documented.has(code));
    expect(missing, `codes missing from docs/errors.md: ${REGENERATE}`).to.deep.equal([]);
  });

  it('when compared with the catalogue, then each row has the code’s status, retryability and meaning', () => {
    for (const [code, error] of Object.entries(ERRORS)) {
      const cells = documented.get(code);
      if (!cells) continue; // reported by the test above
      expect(cells.slice(1), `${code} is stale in docs/errors.md: ${REGENERATE}`).to.deep.equal([
        String(error.status),
        error.retryable ? 'yes' : 'no',
        error.doc,
      ]);
    }
  });

  it('when compared with the catalogue, then it documents no code the catalogue lacks', () => {
    const unknown = [...documented.keys()].filter((code) => !code || !(code in ERRORS));
    expect(unknown, `rows for codes not in src/shared/errors.ts: ${REGENERATE}`).to.deep.equal([]);
  });
});
