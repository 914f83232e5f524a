/**
 * Prints `.env-dev.template` from the settings table in src/config.ts, so the template can never
 * miss a setting: `npm run env:template`. A test fails when the committed template is stale.
 */
import { SETTINGS } from '../../src/config.ts';

export function renderEnvTemplate(): string {
  const lines = [
    '# botwire settings. Copy to .env-dev (./scripts/run.sh and ./scripts/test.sh do it for you,',
    '# filling in fresh secrets), then edit. Generated from src/config.ts by `npm run env:template`.',
    '# Variables already set in the environment win over this file.',
    '',
  ];
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const s = setting as { doc: string; default?: string | number; requiredBy?: readonly string[] };
    lines.push(`# ${s.doc}`);
    if (s.default === undefined) {
      lines.push(`# Required by: ${(s.requiredBy ?? []).join(', ')}.`);
      lines.push(`${key}=`);
    } else {
      lines.push(`# Default: ${s.default === '' ? '(empty)' : s.default}`);
      lines.push(`${key}=${s.default}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(renderEnvTemplate());
