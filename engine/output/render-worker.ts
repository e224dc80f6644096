/**
 * A render helper thread (parallel-text.ts): takes one job, renders its blocks into its ring, ends.
 */
import { parentPort } from 'node:worker_threads';
import { renderJob } from './parallel-text.js';

parentPort!.once('message', (job: Parameters<typeof renderJob>[0]) => {
  renderJob(job);
  parentPort!.close();
});
