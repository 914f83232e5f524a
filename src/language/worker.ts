/** Wires `language`: the translation provider (when configured) and the `language` topic. */
import type { Config } from '../config.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit } from '../shared/worker-kit.ts';
import { handleLanguage, type LanguageMessage } from './handle.ts';
import { LibreTranslate } from './translator.ts';

export async function startLanguage(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  const kit = createKit(config, logger, 'botwire-language');
  const { translateApiUrl, translateApiKey } = config.providers;
  const translator = translateApiUrl
    ? new LibreTranslate(translateApiUrl, {
        fetch: overrides.fetch ?? fetch,
        ...(translateApiKey ? { apiKey: translateApiKey } : {}),
      })
    : undefined;
  if (!translator) logger.info('no TRANSLATE_API_URL: text passes through untranslated');
  return consume<LanguageMessage>(kit, 'language', (message, context) =>
    handleLanguage({ translator }, message, context),
  );
}
