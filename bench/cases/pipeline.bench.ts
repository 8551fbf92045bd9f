import { definePipeline, type NodeRecord, planRun } from '@parley/pipeline';
import { suite } from '../lib.js';

// A wide DAG at the node cap: 20 layers of 10, each node depending on two of the layer above;
// the first half is done, so each tick finds the next layer ready. This is what the runner
// computes on every wake-up of every run.
const WIDTH = 10;
const nodes = Array.from({ length: 200 }, (_, i) => {
  const layer = Math.floor(i / WIDTH);
  const dependsOn =
    layer === 0
      ? []
      : [`n${(layer - 1) * WIDTH + (i % WIDTH)}`, `n${(layer - 1) * WIDTH + ((i + 1) % WIDTH)}`];
  return { id: `n${i}`, kind: 'task' as const, agent: 'worker', dependsOn };
});
const pipeline = definePipeline({ name: 'wide', nodes });
const done: NodeRecord = { v: 1, status: 'done', attempts: 1, spawns: 1, revision: 0, failures: {} };
const records: Record<string, NodeRecord> = {};
for (let i = 0; i < 100; i++) records[`n${i}`] = done;

/** What a host writes by hand: the pending nodes whose dependencies are all done. */
function handWritten(): string[] {
  const ready: string[] = [];
  for (const node of nodes) {
    if (records[node.id] !== undefined) continue;
    if (node.dependsOn.every((dep) => records[dep]?.status === 'done')) ready.push(node.id);
  }
  return ready;
}

suite('pipeline: one scheduler tick (200-node DAG, half done)', {
  cases: {
    'parley planRun': () => () => planRun(pipeline, records),
    'hand-written ready set': () => () => handWritten(),
  },
  // A reference, not judged yet: planRun also finds skips, conditions, aborts and how the run ended.
  goals: [{ case: 'parley planRun', vs: 'hand-written ready set' }],
});
