// One run of the quant DAG (intel → structure → bull ∥ bear → converge → review → data_analysis),
// each node's work answering at once: @parley/pipeline's runner on the memory store (the run's
// header, every node's record and lease written through the durable kernel, the review through
// @parley/conflict's gate) against LangGraph.js's StateGraph with the same nodes and edges and its
// in-memory checkpointer (MemorySaver, a checkpoint per super-step). Neither side calls a model;
// this is what the orchestration itself costs per run.
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { createMemoryStore } from '@parley/core';
import { createPipelineRunner, definePipeline } from '@parley/pipeline';
import { suite } from '../lib.js';

const quant = definePipeline({
  name: 'quant',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'structure', kind: 'task', agent: 'market_structure_researcher', dependsOn: ['intel'] },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['structure'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['structure'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
    { id: 'review', kind: 'review', agent: 'reviewer', reviews: 'converge', dependsOn: ['converge'] },
    {
      id: 'data_analysis',
      kind: 'task',
      agent: 'data_analyst',
      dependsOn: ['review'],
      condition: { node: 'review', field: 'verdict', op: '==', value: 'pass' },
    },
  ],
});

const State = Annotation.Root({
  outputs: Annotation<Record<string, unknown>>({
    reducer: (a, b) => ({ ...a, ...b }),
    default: () => ({}),
  }),
});
type S = typeof State.State;
const node = (id: string) => (_: S) => ({ outputs: { [id]: { node: id } } });

/** Parley's runner on a fresh memory store: each call starts the next run of the quant DAG. */
function parleyRuns(): () => Promise<unknown> {
  const runner = createPipelineRunner({
    store: createMemoryStore(),
    work: (ctx) => (ctx.node.kind === 'review' ? { verdict: 'pass' } : { node: ctx.node.id }),
  });
  let n = 0;
  return () => runner.start(quant, { runId: `r${n++}` });
}

/** LangGraph's compiled graph with a fresh MemorySaver: each call invokes it on a new thread. */
function langgraphRuns(): () => Promise<unknown> {
  const graph = new StateGraph(State)
    .addNode('intel', node('intel'))
    .addNode('structure', node('structure'))
    .addNode('bull', node('bull'))
    .addNode('bear', node('bear'))
    .addNode('converge', node('converge'))
    .addNode('review', () => ({ outputs: { review: { verdict: 'pass' } } }))
    .addNode('data_analysis', node('data_analysis'))
    .addEdge(START, 'intel')
    .addEdge('intel', 'structure')
    .addEdge('structure', 'bull')
    .addEdge('structure', 'bear')
    .addEdge(['bull', 'bear'], 'converge')
    .addEdge('converge', 'review')
    .addConditionalEdges('review', (s: S) =>
      (s.outputs['review'] as { verdict?: string } | undefined)?.verdict === 'pass' ? 'data_analysis' : END,
    )
    .addEdge('data_analysis', END)
    .compile({ checkpointer: new MemorySaver() });
  let n = 0;
  return () => graph.invoke({}, { configurable: { thread_id: `t${n++}` } });
}

suite('pipeline: one run of the quant DAG (memory store / MemorySaver)', {
  cases: {
    'parley pipeline runner': parleyRuns,
    'langgraph StateGraph': langgraphRuns,
  },
  // Both orchestrate seven nodes with no work inside them; the runner should stay at least 15× faster.
  goals: [{ case: 'parley pipeline runner', vs: 'langgraph StateGraph', fasterBy: 15 }],
});

// What a finished run leaves on the heap: the runner's records in its memory store (the header, seven
// node records, the review gate's record) against MemorySaver's checkpoints and pending writes of the
// thread. Each run is awaited before the next; its result is dropped, so only what the store or the
// checkpointer keeps is counted (heap growth after two forced collections, divided by the runs).
let parleyHeap: (() => Promise<unknown>) | undefined;
let langgraphHeap: (() => Promise<unknown>) | undefined;
suite('pipeline: heap left per run of the quant DAG (memory store / MemorySaver)', {
  kind: 'memory',
  settle: true,
  instances: 2_000,
  cases: {
    'parley pipeline runner': () => {
      parleyHeap ??= parleyRuns();
      return parleyHeap().then(() => undefined);
    },
    'langgraph StateGraph': () => {
      langgraphHeap ??= langgraphRuns();
      return langgraphHeap().then(() => undefined);
    },
  },
  goals: [{ case: 'parley pipeline runner', vs: 'langgraph StateGraph', maxRatio: 0.3 }],
});
