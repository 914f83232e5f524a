/**
 * The lock file names where every package comes from and its hash, so `npm ci` installs the same
 * bytes on any machine (in the image build too); the project's .npmrc keeps npm writing them even
 * where a user's config says otherwise.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};
const FIX =
  'fill them (npm install --package-lock-only with the project .npmrc, from a clean lock)';

describe('package-lock.json', () => {
  const entries = Object.entries(lock.packages).filter(([path, entry]) => path && !entry.link);

  it('when read, then it is a version 3 lock with packages', () => {
    expect(lock.lockfileVersion).to.equal(3);
    expect(entries.length).to.be.greaterThan(100);
  });

  it('when each package entry is read, then it has a registry tarball URL and a sha512 integrity', () => {
    const missing = entries
      .filter(([, entry]) => !entry.resolved || !entry.integrity)
      .map(([path]) => path);
    expect(missing, `entries without resolved or integrity: ${FIX}`).to.deep.equal([]);
    const bad = entries
      .filter(
        ([, entry]) =>
          !/^https:\/\/registry\.npmjs\.org\/.+\/-\/.+\.tgz$/.test(entry.resolved ?? '') ||
          !/^sha512-[A-Za-z0-9+/]+=*$/.test(entry.integrity ?? ''),
      )
      .map(([path, entry]) => `${path}: ${entry.resolved} ${entry.integrity}`);
    expect(bad, 'entries resolved elsewhere than the npm registry or hashed weakly').to.deep.equal(
      [],
    );
  });

  it('when the resolved URL is read, then it names the entry’s own version', () => {
    const wrong = entries
      .filter(([, entry]) => !(entry.resolved ?? '').endsWith(`-${entry.version}.tgz`))
      .map(([path, entry]) => `${path}@${entry.version}: ${entry.resolved}`);
    expect(wrong).to.deep.equal([]);
  });

  it('when npm reads the project config, then it keeps resolved fields in the lock', () => {
    const npmrc = readFileSync('.npmrc', 'utf8');
    expect(npmrc).to.match(/^omit-lockfile-registry-resolved\s*=\s*false\s*$/m);
  });
});
