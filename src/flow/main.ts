import { runComponent } from '../shared/process.ts';
import { startFlow } from './worker.ts';

await runComponent(process, 'flow', (config, logger) => startFlow(config, logger));
