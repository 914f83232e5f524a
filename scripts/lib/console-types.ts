/**
 * Generates the console's admin API types, console/src/api/schema.d.ts, from the OpenAPI
 * description the api serves (`openApiDocument()`, no server needed), formatted with the project's
 * prettier settings so the committed file and a fresh generation compare byte for byte.
 * `npm run console:types` writes it; test/console-types.test.ts fails when it is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import prettier from 'prettier';
import { openApiDocument } from '../../src/api/openapi.ts';

/** Where the generated types live. */
export const CONSOLE_TYPES = fileURLToPath(
  new URL('../../console/src/api/schema.d.ts', import.meta.url),
);

const HEADER = `// Generated from GET /v2/openapi.json by \`npm run console:types\`; do not edit.\n`;

/** The generated file's text for the current OpenAPI description. */
export async function consoleTypes(): Promise<string> {
  // The document is built as plain JSON; openapi-typescript checks its shape as it reads it.
  // An object schema without properties is any object (JSON Schema), not an empty one.
  const ast = await openapiTS(openApiDocument() as unknown as OpenAPI3, {
    emptyObjectsUnknown: true,
  });
  const options = (await prettier.resolveConfig(CONSOLE_TYPES)) ?? {};
  return prettier.format(HEADER + astToString(ast), { ...options, parser: 'typescript' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONSOLE_TYPES, await consoleTypes());
}
