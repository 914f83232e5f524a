/**
 * Checks a live answer of the api against the schema the OpenAPI description gives for it
 * (`components.schemas`), so the console's generated types cannot drift from what is sent.
 */
import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { expect } from 'chai';
import { openApiDocument } from '../../src/api/openapi.ts';

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

/** Fails the test when `value` does not match the component schema `name`. */
export function expectDescribedAs(name: string, value: unknown): void {
  const schemas = (openApiDocument() as { components: { schemas: Record<string, object> } })
    .components.schemas;
  const schema = schemas[name];
  expect(schema, `components.schemas.${name}`).to.be.an('object');
  // Descriptions and OpenAPI words are not validation keywords: strict mode would refuse them.
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  const validate = ajv.compile(schema!);
  const ok = validate(value);
  expect(ok, `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`).to.equal(
    true,
  );
}
