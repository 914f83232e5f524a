/**
 * JSON Schemas under `schemas/`, compiled once at start. A schema is named by its path below
 * `schemas/` without `.json` (`topics/channel`, `http/telegram-update`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectPath } from './runtime-layout.ts';

/** The `schemas/` folder of this checkout. */
export const SCHEMAS_DIR = projectPath('schemas');

/** One validation failure, with the JSON Pointer of the offending value. */
export interface SchemaProblem {
  path: string;
  message: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; problems: SchemaProblem[] };

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

function listJsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function toProblem(error: ErrorObject): SchemaProblem {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  const path = error.instancePath || '/';
  if (missing) return { path: `${error.instancePath}/${missing}`, message: 'is required' };
  if (extra) return { path: `${error.instancePath}/${extra}`, message: 'is not allowed' };
  return { path, message: error.message ?? 'is invalid' };
}

/** Formats problems as one line: `/a/b is required; /c must be string`. */
export function describeProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => `${p.path} ${p.message}`).join('; ');
}

/** All schemas of `schemas/`, compiled up front so a broken schema stops the process at start. */
export class SchemaRegistry {
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(dir: string = SCHEMAS_DIR) {
    // unicode: false measures maxLength in UTF-16 units (String#length) instead of walking each
    // string for code points; the limits are size guards, and this is on every callback's path.
    const ajv = addFormats(
      new Ajv({
        allErrors: true,
        strict: true,
        strictRequired: false,
        allowUnionTypes: true,
        unicode: false,
        // Ajv flags `unicode` as deprecated but still honours it; every other warning stays loud.
        logger: {
          log: () => undefined,
          warn: (...args: unknown[]) => {
            if (!String(args[0]).startsWith('DEPRECATED: option unicode'))
              throw new Error(args.join(' '));
          },
          error: (...args: unknown[]) => {
            throw new Error(args.join(' '));
          },
        },
      }),
    );
    const files = listJsonFiles(dir);
    const named = files.map((file) => ({
      name: relative(dir, file)
        .replace(/\\/g, '/')
        .replace(/\.json$/, ''),
      schema: JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>,
    }));
    // Add all first so schemas may $ref each other by name, then compile each once.
    for (const { name, schema } of named) ajv.addSchema({ ...schema, $id: name });
    for (const { name } of named) {
      const validate = ajv.getSchema(name);
      if (!validate) throw new Error(`schema ${name} did not compile`);
      this.#validators.set(name, validate);
    }
  }

  has(name: string): boolean {
    return this.#validators.has(name);
  }

  /** Validates `value` against the named schema. */
  validate<T>(name: string, value: unknown): ValidationResult<T> {
    const validate = this.#validators.get(name);
    if (!validate) throw new Error(`unknown schema ${name}`);
    if (validate(value)) return { ok: true, value: value as T };
    // An if/then failure is reported twice: once at the failing path, once as "must match then".
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if');
    return { ok: false, problems: errors.map(toProblem) };
  }
}
