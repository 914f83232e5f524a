import { runComponent } from '../shared/process.ts';
import { startApi } from './worker.ts';

await runComponent(process, 'api', (config, logger) => startApi(config, logger));
