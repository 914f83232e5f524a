/**
 * The JSON Schemas of `llm` steps' outputs: compiled once per distinct schema (flows are validated
 * with them, and each answer is checked against them), in an Ajv of their own so an operator's
 * schema never meets the service's.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';

/** Largest output schema, as JSON (characters). */
export const MAX_OUTPUT_SCHEMA_CHARS = 16_384;
/** Compiled schemas kept; the least recently compiled go first. */
const CACHE_SIZE = 500;

export type OutputSchema =
  { ok: true; validate: (value: unknown) => string[] } | { ok: false; message: string };

/**
 * The schemas' `pattern` and `patternProperties` run on RE2 (re2js), as wait patterns do
 * (`pattern.ts`): an operator's pattern cannot backtrack for seconds on the model's answer. A
 * pattern RE2 refuses (backreferences, lookaround) makes the schema invalid, so the flow is
 * refused at validation. Ajv asks for the engine's `code` for standalone output only.
 */
const re2 = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(pattern);
    return { test: (text: string) => re.matcher(text).find() };
  },
  { code: 'RE2JS' },
);

// Lenient about keywords it does not know (providers' schemas carry `strict`, `title`...), and
// without formats: the model's answer is checked for shape, not for what a string means.
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  validateSchema: true,
  code: { regExp: re2 },
});
const cache = new Map<string, { schema: object; compiled: OutputSchema }>();

function explain(validate: ValidateFunction): string[] {
  return (validate.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

/**
 * The checker of an `llm` step's `output` schema: it returns the problems of a value (none when
 * valid). `ok: false` when the schema is too big or does not compile.
 */
export function outputSchema(schema: Record<string, unknown>): OutputSchema {
  const key = JSON.stringify(schema);
  const known = cache.get(key);
  if (known) return known.compiled;
  let compiled: OutputSchema;
  if (key.length > MAX_OUTPUT_SCHEMA_CHARS) {
    compiled = { ok: false, message: `is longer than ${MAX_OUTPUT_SCHEMA_CHARS} characters` };
  } else {
    try {
      const validate = ajv.compile(schema);
      compiled = { ok: true, validate: (value) => (validate(value) ? [] : explain(validate)) };
    } catch (error) {
      compiled = {
        ok: false,
        message: `is not a valid JSON Schema: ${(error as Error).message}`,
      };
    }
  }
  if (cache.size >= CACHE_SIZE) {
    const [oldest, entry] = cache.entries().next().value as [string, { schema: object }];
    cache.delete(oldest);
    ajv.removeSchema(entry.schema); // Ajv keeps what it compiled until told
  }
  cache.set(key, { schema, compiled });
  return compiled;
}
