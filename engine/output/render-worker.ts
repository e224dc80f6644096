/**
 * A render helper thread. It first serves any number of read jobs (large file reads shared with a
 * synchronous query: storage/parallel-read.ts), then takes at most one render job, fills its share
 * into its ring and ends: a text job renders blocks of JSON or CSV rows (parallel-text.ts), an Arrow
 * job fills record batches' buffers (arrow-batch.ts).
 */
import { parentPort } from 'node:worker_threads';
import { readJob, type ReadJob } from '../storage/parallel-read.js';
import { fillJob, type ArrowJob } from './arrow-batch.js';
import { renderJob, type TextJob } from './parallel-text.js';

parentPort!.on('message', (job: ReadJob | TextJob | ArrowJob) => {
  if (job.kind === 'read') return readJob(job);
  if (job.kind === 'arrow') fillJob(job);
  else renderJob(job);
  parentPort!.close();
});
// loaded: a job posted now is taken at once (RenderHelpers.ready)
parentPort!.postMessage('ready');
