/** The console's generated admin API types agree with the OpenAPI description the api serves. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CONSOLE_TYPES, consoleTypes } from '../scripts/lib/console-types.ts';
import { openApiDocument } from '../src/api/openapi.ts';

type Schema = Record<string, unknown>;

/** The JSON schemas of every 2xx answer of the routes the bearer key or a session opens. */
function adminAnswers(): { route: string; schema: Schema }[] {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { security?: Schema[]; responses?: Schema }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, op]) => op.security?.some((s) => 'bearer' in s || 'session' in s) === true)
      .flatMap(([method, op]) =>
        Object.entries(op.responses ?? {})
          .filter(([status]) => /^2/.test(status))
          .map(([status, answer]) => ({
            route: `${method.toUpperCase()} ${path} ${status}`,
            schema: (answer as { content?: Record<string, { schema?: Schema }> }).content?.[
              'application/json'
            ]?.schema,
          }))
          .filter((a): a is { route: string; schema: Schema } => a.schema !== undefined),
      ),
  );
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const components = (openApiDocument() as { components: { schemas: Record<string, Schema> } })
    .components.schemas;
  const found = components[ref.replace('#/components/schemas/', '')];
  expect(found, ref).to.be.an('object');
  return found!;
}

describe('console API types', () => {
  it('when the OpenAPI description changes, then console/src/api/schema.d.ts must be regenerated (npm run console:types)', async () => {
    const committed = readFileSync(CONSOLE_TYPES, 'utf8');
    const fresh = await consoleTypes();
    expect(committed === fresh, 'schema.d.ts is stale: run npm run console:types').to.equal(true);
  });

  it('when an admin route answers JSON, then the description says its fields (no bare object the console would have to type by hand)', () => {
    const answers = adminAnswers();
    expect(answers.length).to.be.greaterThan(20);
    const bare = answers
      .filter(({ schema }) => {
        const resolved = resolve(schema);
        return !('properties' in resolved || 'oneOf' in resolved || 'anyOf' in resolved);
      })
      .map(({ route }) => route);
    expect(bare).to.deep.equal([]);
  });
});
