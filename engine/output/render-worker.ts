/**
 * A render helper thread: takes one job, fills its share into its ring, ends. A text job renders
 * blocks of JSON or CSV rows (parallel-text.ts); an Arrow job fills record batches' buffers
 * (arrow-batch.ts).
 */
import { parentPort } from 'node:worker_threads';
import { fillJob, type ArrowJob } from './arrow-batch.js';
import { renderJob, type TextJob } from './parallel-text.js';

parentPort!.once('message', (job: TextJob | ArrowJob) => {
  if (job.kind === 'arrow') fillJob(job);
  else renderJob(job);
  parentPort!.close();
});
