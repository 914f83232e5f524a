import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { validateFlow } from '../src/shared/flows/validate-flow.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { ROOT } from './support/services.ts';

describe('examples/', () => {
  const schemas = new SchemaRegistry();
  const flows = readdirSync(`${ROOT}/examples`).filter((f) => f.endsWith('-flow.json'));

  it('when listed, then there is at least one example flow', () => {
    expect(flows.length).to.be.greaterThan(0);
  });

  for (const file of flows) {
    it(`when ${file} is validated as a bot's flow, then it passes with no unreachable state`, () => {
      const result = validateFlow(
        schemas,
        JSON.parse(readFileSync(`${ROOT}/examples/${file}`, 'utf8')),
      );
      expect(result.ok, JSON.stringify(result.ok ? [] : result.problems)).to.be.true;
      if (result.ok) expect(result.warnings).to.deep.equal([]);
    });
  }
});
