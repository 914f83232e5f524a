import { runComponent } from '../shared/process.ts';
import { startLanguage } from './worker.ts';

await runComponent(process, 'language', (config, logger) => startLanguage(config, logger));
