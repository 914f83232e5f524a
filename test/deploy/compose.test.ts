/**
 * docker-compose.yml: Redis and Postgres by default; the profile `service` runs the whole service
 * from the image: migrate once, then each component, each scalable with --scale, api and indexer
 * sharing the uploads volume. Checked on the file (Docker is not needed).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, SETTINGS } from '../../src/config.ts';
import { ROOT } from '../support/services.ts';

interface Service {
  image?: string;
  build?: string;
  profiles?: string[];
  command?: string[];
  container_name?: string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
}

const COMPONENTS = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'];

describe('docker-compose.yml', () => {
  const file = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as { services: Record<string, Service> };
  const { services } = file;

  it('when started without a profile, then only Redis and Postgres run', () => {
    const always = Object.keys(services).filter((name) => !services[name]!.profiles);
    expect(always.sort()).to.deep.equal(['postgres', 'redis']);
  });

  it('when the service profile starts, then migrate runs once before every component, all from the one image', () => {
    const profile = Object.keys(services).filter((n) => services[n]!.profiles?.includes('service'));
    expect(profile.sort()).to.deep.equal([...COMPONENTS, 'migrate'].sort());
    const migrate = services.migrate!;
    expect(migrate.command).to.deep.equal(['migrate']);
    expect(migrate.depends_on?.postgres?.condition).to.equal('service_healthy');
    for (const c of COMPONENTS) {
      const s = services[c]!;
      expect(s.command, c).to.deep.equal([c]);
      expect(s.image, c).to.equal(migrate.image);
      expect(s.build, c).to.equal('.');
      expect(s.depends_on?.migrate?.condition, c).to.equal('service_completed_successfully');
    }
  });

  it('when a component is scaled, then nothing fixes one container: no name, and no single host port', () => {
    for (const c of COMPONENTS) {
      const s = services[c]!;
      expect(s.container_name, c).to.equal(undefined);
      for (const port of s.ports ?? []) {
        // A host port range gives each replica its own (api); a fixed one would collide.
        expect(port, c).to.match(/^\d+-\d+:\d+$/);
      }
      if (c !== 'api') expect(s.ports, c).to.equal(undefined);
    }
  });

  it('when documents are uploaded, then api and indexer share the uploads volume at the image’s STORAGE_DIR', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const storageDir = /STORAGE_DIR=(\S+)/.exec(dockerfile)?.[1];
    expect(storageDir).to.be.a('string');
    for (const c of ['api', 'indexer']) {
      expect(services[c]!.volumes, c).to.deep.equal([`uploads:${storageDir}`]);
    }
  });

  it('when components get settings, then src/config.ts knows each and accepts them', () => {
    const known = new Set(Object.keys(SETTINGS));
    const shutdownMs = loadConfig({}).shutdownTimeoutMs;
    for (const c of COMPONENTS) {
      const env = services[c]!.environment ?? {};
      expect(
        Object.keys(env).filter((k) => !known.has(k)),
        c,
      ).to.deep.equal([]);
      const filled = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{(\w+):-([^}]*)\}/g, '$2')]),
      );
      filled.ADMIN_API_KEY = 'k'.repeat(40);
      filled.CREDENTIALS_KEY = Buffer.alloc(32, 1).toString('base64');
      const config = loadConfig(filled, c);
      const graceS = Number(/^(\d+)s$/.exec(services[c]!.stop_grace_period ?? '')?.[1]);
      const drainMs = shutdownMs + (c === 'api' ? config.api.drainDelayMs : 0);
      expect(graceS * 1000, `${c} stop_grace_period`).to.be.greaterThan(drainMs);
    }
  });
});
