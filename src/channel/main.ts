import { runComponent } from '../shared/process.ts';
import { startChannel } from './worker.ts';

await runComponent(process, 'channel', (config, logger) => startChannel(config, logger));
