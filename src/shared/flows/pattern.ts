/**
 * A wait's `pattern`: RE2 syntax, matched by re2js, a JavaScript port of RE2 whose matching time
 * grows linearly with the text (no backtracking), so no pattern is catastrophic. What RE2 cannot
 * bound is not offered: backreferences and lookaround do not compile, and neither do repetitions
 * over 1000 nor programs RE2 finds too large. The flow component matches in a worker thread with
 * a deadline on top (`src/flow/pattern-matcher.ts`): linear still means ~2 s in JavaScript for the
 * largest programs over the longest texts.
 */
import { RE2JS } from 're2js';

/** Longer texts are refused before a `pattern` runs, bounding its work. */
export const MAX_PATTERN_INPUT = 1024;

/** The compiled pattern, or the reason RE2 refuses it. */
export function compilePattern(
  pattern: string,
): { ok: true; re: RE2JS } | { ok: false; reason: string } {
  try {
    return { ok: true, re: RE2JS.compile(pattern) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** Compiled patterns, the most recent `keep` of them: a bot's wait asks the same one again and again. */
export class CompiledPatterns {
  readonly #keep: number;
  readonly #compiled = new Map<string, RE2JS | null>();

  constructor(keep = 256) {
    this.#keep = keep;
  }

  /**
   * Whether `text` (already trimmed) is accepted by `pattern`: it is at most MAX_PATTERN_INPUT
   * characters and the pattern finds a match in it (anchor with `^...$` for the whole text). A
   * pattern RE2 refuses matches nothing.
   */
  accepts(pattern: string, text: string): boolean {
    if (text.length > MAX_PATTERN_INPUT) return false;
    let re = this.#compiled.get(pattern);
    if (re === undefined) {
      const result = compilePattern(pattern);
      re = result.ok ? result.re : null;
      if (this.#compiled.size >= this.#keep)
        this.#compiled.delete(this.#compiled.keys().next().value!);
      this.#compiled.set(pattern, re);
    }
    return re !== null && re.matcher(text).find();
  }
}
