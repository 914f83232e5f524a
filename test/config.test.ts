/**
 * Settings: the env template stays generated from src/config.ts, loadConfig names the bad key and
 * never echoes a secret, and a component process stops with exit code 78 on a bad setting.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvTemplate } from '../scripts/lib/env-template.ts';
import { ConfigError, loadConfig, SETTINGS } from '../src/config.ts';
import { EXIT_CONFIG } from '../src/shared/process.ts';
import { componentArgs } from './support/components.ts';
import { run } from './support/run.ts';
import { ROOT } from './support/services.ts';

const ADMIN_API_KEY = 'admin-key-for-tests-0123456789abcdef';
const CREDENTIALS_KEY = Buffer.alloc(32, 7).toString('base64');

/** The error `fn` throws (fails the test when it throws nothing). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  expect.fail('expected an error to be thrown');
}

/**
 * Every setting blanked (an empty value counts as unset), then `values`: a child process sees only
 * what the test gives it, whatever the shell running the tests exports.
 */
function settingsEnv(values: Record<string, string>): Record<string, string> {
  return { ...Object.fromEntries(Object.keys(SETTINGS).map((key) => [key, ''])), ...values };
}

describe('configuration', () => {
  describe('.env-dev.template', () => {
    it('when compared with the settings table, then it is exactly what renderEnvTemplate() prints', () => {
      const committed = readFileSync(join(ROOT, '.env-dev.template'), 'utf8');
      expect(committed, '.env-dev.template is stale: run `npm run env:template`').to.equal(
        renderEnvTemplate(),
      );
    });

    it('when read, then every setting has a line of its own', () => {
      const committed = readFileSync(join(ROOT, '.env-dev.template'), 'utf8');
      for (const key of Object.keys(SETTINGS)) {
        expect(committed, key).to.match(new RegExp(`^${key}=`, 'm'));
      }
    });
  });

  describe('loadConfig', () => {
    it('when nothing is set and no component is named, then the defaults apply', () => {
      const config = loadConfig({});
      expect(config.api.port).to.equal(8000);
      expect(config.api.host).to.equal('0.0.0.0');
      expect(config.redisUrl).to.equal('redis://127.0.0.1:6379');
      expect(config.databaseUrl).to.equal('postgres://postgres:postgres@localhost:5432/botwire');
      expect(config.stream).to.deep.equal({ prefix: 'botwire', maxLen: 1_000_000, partitions: 8 });
      expect(config.consumer).to.include({
        batchSize: 64,
        concurrency: 16,
        blockMs: 2000,
        leaseMs: 10_000,
        retryBaseMs: 500,
        maxDeliveries: 5,
      });
      expect(config.consumer.name).to.match(/^.+-\d+$/);
      expect(config.logLevel).to.equal('info');
      expect(config.shutdownTimeoutMs).to.equal(15_000);
      expect(config.credentialsKey).to.equal(undefined);
    });

    it('when a setting is empty or blank, then its default applies', () => {
      const config = loadConfig({ API_PORT: '', STREAM_PREFIX: '  ', CONSUMER_NAME: 'worker-7' });
      expect(config.api.port).to.equal(8000);
      expect(config.stream.prefix).to.equal('botwire');
      expect(config.consumer.name).to.equal('worker-7');
    });

    it('when settings are given, then integers are numbers and the credentials key is 32 bytes', () => {
      const config = loadConfig({ API_PORT: '8081', CREDENTIALS_KEY, ADMIN_API_KEY }, 'api');
      expect(config.api.port).to.equal(8081);
      expect(config.api.adminApiKey).to.equal(ADMIN_API_KEY);
      expect(config.credentialsKey).to.deep.equal(Buffer.alloc(32, 7));
    });

    it('when an integer setting is not a number, then ConfigError names it and the value', () => {
      const error = thrown(() => loadConfig({ API_PORT: 'abc' }));
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('API_PORT');
      expect((error as Error).message).to.contain('abc');
    });

    it('when REDIS_URL names a cluster, then it is taken; when a cluster URL is malformed, then ConfigError names REDIS_URL without its password', () => {
      const url = 'rediss+cluster://bot:pw-secret@10.0.0.1:7000,10.0.0.2:7000';
      expect(loadConfig({ REDIS_URL: url }).redisUrl).to.equal(url);
      const error = thrown(() =>
        loadConfig({ REDIS_URL: 'redis+cluster://:pw-secret@10.0.0.1:7000,10.0.0.2:x' }),
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('REDIS_URL');
      expect((error as Error).message).not.to.contain('pw-secret');
    });

    it('when a URL setting has the wrong scheme, then ConfigError shows what was given with its password masked', () => {
      const error = thrown(() =>
        loadConfig({
          REDIS_URL: 'http://bot:pw-secret@10.0.0.1:6379',
          DATABASE_URL: 'mysql://root:db-secret@10.0.0.1/botwire',
        }),
      );
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).to.contain('REDIS_URL').and.to.contain('http://bot:***@10.0.0.1:6379');
      expect(message)
        .to.contain('DATABASE_URL')
        .and.to.contain('mysql://root:***@10.0.0.1/botwire');
      expect(message).not.to.contain('pw-secret').and.not.to.contain('db-secret');
    });

    it('when an integer setting is out of range, then ConfigError names it', () => {
      const error = thrown(() => loadConfig({ API_PORT: '70000', CONSUMER_CONCURRENCY: '0' }));
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('API_PORT');
      expect((error as Error).message).to.contain('CONSUMER_CONCURRENCY');
    });

    it('when api starts without ADMIN_API_KEY, then ConfigError names that key only', () => {
      const error = thrown(() => loadConfig({ CREDENTIALS_KEY }, 'api'));
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('ADMIN_API_KEY');
      expect((error as Error).message).to.not.contain('CREDENTIALS_KEY');
    });

    it('when a component does not need the secrets, then it starts without them', () => {
      expect(loadConfig({}, 'language').api.adminApiKey).to.equal('');
    });

    it('when language has a speech provider but no CREDENTIALS_KEY, then ConfigError names the key and why', () => {
      const speech = { SPEECH_API_URL: 'https://speech.example.test/v1' };
      const error = thrown(() => loadConfig(speech, 'language'));
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message)
        .to.contain('CREDENTIALS_KEY')
        .and.contain('SPEECH_API_URL');
      expect(
        loadConfig({ ...speech, CREDENTIALS_KEY }, 'language').providers.speechApiUrl,
      ).to.equal(speech.SPEECH_API_URL);
      expect(loadConfig(speech).providers.speechApiUrl, 'no component, no requirement').to.equal(
        speech.SPEECH_API_URL,
      );
    });

    it('when a secret is malformed, then ConfigError names the key but never shows the value', () => {
      const error = thrown(() =>
        loadConfig(
          { CREDENTIALS_KEY: 'short-secret-value', ADMIN_API_KEY: 'tiny-admin-secret' },
          'api',
        ),
      );
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).to.contain('CREDENTIALS_KEY');
      expect(message).to.contain('ADMIN_API_KEY');
      expect(message).to.not.contain('short-secret-value');
      expect(message).to.not.contain('tiny-admin-secret');
    });
  });

  describe('CREDENTIALS_KEY_PREVIOUS', () => {
    it('when it lists keys separated by commas, then each is a 32-byte key; when empty, none', () => {
      const a = Buffer.alloc(32, 1);
      const b = Buffer.alloc(32, 2);
      const list = `${a.toString('base64')} , ${b.toString('base64')}`;
      const config = loadConfig({ CREDENTIALS_KEY, CREDENTIALS_KEY_PREVIOUS: list }, 'channel');
      expect(config.previousCredentialsKeys).to.deep.equal([a, b]);
      expect(loadConfig({ CREDENTIALS_KEY }, 'channel').previousCredentialsKeys).to.deep.equal([]);
    });

    it('when one of its keys is malformed, then ConfigError names the setting but never the value', () => {
      const bad = `${CREDENTIALS_KEY},not-a-key-value`;
      const error = thrown(() =>
        loadConfig({ CREDENTIALS_KEY, CREDENTIALS_KEY_PREVIOUS: bad }, 'channel'),
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('CREDENTIALS_KEY_PREVIOUS');
      expect((error as Error).message).to.not.contain('not-a-key-value');
    });
  });

  describe('a component process', () => {
    it('when a setting is bad, then runComponent exits 78 naming the key on stderr', async () => {
      const result = await run('node', ['--import', 'tsx', 'test/fixtures/config-component.ts'], {
        env: settingsEnv({ API_PORT: 'notaport', ADMIN_API_KEY, CREDENTIALS_KEY }),
        timeoutMs: 20_000,
      });
      expect(result.code, result.stderr).to.equal(EXIT_CONFIG);
      expect(result.stderr).to.contain('API_PORT');
      expect(result.stderr).to.not.contain(ADMIN_API_KEY);
    });

    it('when the api component is started with API_PORT=notaport, then it exits 78 naming API_PORT', async () => {
      const result = await run('node', componentArgs('api'), {
        env: settingsEnv({ API_PORT: 'notaport', ADMIN_API_KEY, CREDENTIALS_KEY }),
        timeoutMs: 20_000,
      });
      expect(result.code, result.stderr).to.equal(78);
      expect(result.stderr).to.contain('API_PORT');
      expect(result.stderr).to.not.contain(ADMIN_API_KEY);
      expect(result.stderr).to.not.contain(CREDENTIALS_KEY);
    });
  });
});
