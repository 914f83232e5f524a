/** The console's generated admin API types agree with the OpenAPI description the api serves. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CONSOLE_TYPES, consoleTypes } from '../scripts/lib/console-types.ts';

describe('console API types', () => {
  it('when the OpenAPI description changes, then console/src/api/schema.d.ts must be regenerated (npm run console:types)', async () => {
    const committed = readFileSync(CONSOLE_TYPES, 'utf8');
    const fresh = await consoleTypes();
    expect(committed === fresh, 'schema.d.ts is stale: run npm run console:types').to.equal(true);
  });
});
