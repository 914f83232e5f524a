/**
 * Wires `language`: the translation provider and the speech provider (each when configured) and
 * the `language` topic. Speech needs the channels' credentials to download voice messages, so with
 * SPEECH_API_URL set the component also opens Postgres and the bot directory.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { loadLanguageDetection } from '../shared/languages/detect.ts';
import { consume, createKit, openDirectory, type Kit } from '../shared/worker-kit.ts';
import { handleLanguage, type LanguageMessage } from './handle.ts';
import { PlatformMedia } from './media.ts';
import { OpenAiSpeech } from './speech.ts';
import { LibreTranslate } from './translator.ts';
import type { VoiceDeps } from './voice.ts';

/** Deliveries a voice message may fail retryably before the user is told (at most the consumer's). */
const VOICE_ATTEMPTS = 3;

async function startVoice(
  kit: Kit,
  credentialsKey: Buffer,
  http: typeof fetch,
): Promise<{ voice: VoiceDeps; closers: (() => Promise<unknown>)[] }> {
  const { config } = kit;
  const providers = config.providers;
  const { db, directory } = await openDirectory(kit, credentialsKey);
  const voice: VoiceDeps = {
    speech: new OpenAiSpeech(providers.speechApiUrl, {
      fetch: http,
      ...(providers.speechApiKey ? { apiKey: providers.speechApiKey } : {}),
      sttModel: providers.speechSttModel,
      ttsModel: providers.speechTtsModel,
      voice: providers.speechTtsVoice,
    }),
    media: new PlatformMedia({
      directory,
      fetch: http,
      telegramApiUrl: providers.telegramApiUrl,
      whatsappApiUrl: providers.whatsappApiUrl,
    }),
    attempts: Math.min(VOICE_ATTEMPTS, config.consumer.maxDeliveries),
  };
  return { voice, closers: [() => directory.close(), () => db.destroy()] };
}

export async function startLanguage(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  const { translateApiUrl, translateApiKey, speechApiUrl } = config.providers;
  if (speechApiUrl && !config.credentialsKey) {
    throw new Error('CREDENTIALS_KEY is required by language when SPEECH_API_URL is set');
  }
  const http = overrides.fetch ?? fetch;
  // Every text is detected here: the model is loaded now, not in the first user's turn.
  await loadLanguageDetection();
  const kit = createKit(config, logger, { name: 'botwire-language' });
  const translator = translateApiUrl
    ? new LibreTranslate(translateApiUrl, {
        fetch: http,
        ...(translateApiKey ? { apiKey: translateApiKey } : {}),
      })
    : undefined;
  if (!translator) logger.info('no TRANSLATE_API_URL: text passes through untranslated');
  let voice: VoiceDeps | undefined;
  let closers: (() => Promise<unknown>)[] = [];
  if (speechApiUrl && config.credentialsKey) {
    try {
      ({ voice, closers } = await startVoice(kit, config.credentialsKey, http));
    } catch (error) {
      await kit.redis.quit().catch(() => undefined);
      throw error;
    }
  } else {
    logger.info('no SPEECH_API_URL: voice messages are answered that voice is not supported');
  }
  return consume<LanguageMessage>(
    kit,
    'language',
    (message, context) => handleLanguage({ translator, voice }, message, context),
    closers,
  );
}
