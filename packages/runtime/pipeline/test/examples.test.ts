// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/pipeline, compiled and run; each console.log of an example is an assertion here.
import {
  type AttemptEffect,
  type AttemptEvent,
  type AttemptOutcome,
  type AttemptSpawn,
  type AttemptState,
  attemptSpawn,
  attemptStep,
  type SpawnVerdict,
  spawnVerdict,
  revisionOrder,
  toReviseRequest,
  afterFailure,
  type ApprovalDecision,
  type ApprovalNode,
  createCronTrigger,
  createPipelineRunner,
  type CronParseResult,
  type CronSchedule,
  type CronTrigger,
  type CronTriggerOptions,
  DEFAULT_FAILURE_POLICIES,
  DEFAULT_NODE_TIMEOUT_MS,
  definePipeline,
  FAILURE_KINDS,
  type FailureKind,
  type NodeFailurePolicy,
  MAX_PIPELINE_NODES,
  nextCronRun,
  previousCronRun,
  MAX_COUNTED_SKIPS,
  type CronFire,
  NODE_RECORD,
  RUN_RECORD,
  NODE_STATUSES,
  type NodeEffect,
  type NodeEvent,
  nodeStep,
  type NodeBase,
  type NodeCondition,
  type NodeContext,
  type NodeRecord,
  type NodeStatus,
  parseCron,
  parsePipeline,
  type ParsePipelineResult,
  PIPELINE_ERROR_CODES,
  type PipelineDefinition,
  type PipelineErrorCode,
  type PipelineInit,
  type PipelineNode,
  type PipelineRunner,
  type PipelineRunnerEvents,
  type PipelineRunnerOptions,
  type ReviseRequest,
  type RetryContext,
  planRun,
  type ReviewNode,
  RUN_REFUSAL_CODES,
  type RunPlan,
  type RunRecord,
  type RunRefusalCode,
  type RunResult,
  type RunStatus,
  SESSION_TOOLS,
  type SessionTool,
  sessionToolsAt,
  type StartRunOptions,
  type TaskNode,
  toPipelineMermaid,
} from '../src/index.js';
import { createKernel, createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createTopology } from '@parley/envelope';
import { describe, expect, it } from 'vitest';

describe('cron-trigger.ts examples', () => {
  it('CronTriggerOptions', async () => {
    const options: CronTriggerOptions = { cron: '30 7 * * 1-5', onFire: (at) => console.log(at) };
  });

  it('CronTrigger', async () => {
    const trigger: CronTrigger = createCronTrigger({
      cron: '0 * * * *',
      onFire: () => {},
      clock: createManualClock(),
    });
    trigger.stop();
  });

  it('createCronTrigger', async () => {
    const clock = createManualClock({ now: Date.UTC(2026, 3, 10, 7, 0) });
    const fired: string[] = [];
    const trigger = createCronTrigger({
      cron: '30 7 * * 1-5',
      clock,
      onFire: (at) => fired.push(new Date(at).toISOString()),
    });
    clock.advance(30 * 60_000);
    expect([fired]).toEqual([['2026-04-10T07:30:00.000Z']]); // ['2026-04-10T07:30:00.000Z']
    trigger.stop();
  });
});

describe('cron.ts examples', () => {
  it('CronSchedule', async () => {
    const parsed = parseCron('30 7 * * 1-5');
    const schedule: CronSchedule | undefined = parsed.ok ? parsed.value : undefined;
    expect([schedule?.daysOfWeek]).toEqual([[1, 2, 3, 4, 5]]); // [1, 2, 3, 4, 5]
  });

  it('CronParseResult', async () => {
    const bad: CronParseResult = { ok: false, message: 'minute: "60" is outside 0-59' };
  });

  it('parseCron', async () => {
    const cron = parseCron('30 7 * * 1-5');
    expect([cron.ok && cron.value.description]).toEqual(['at 07:30 UTC, Monday to Friday']); // at 07:30 UTC, Monday to Friday
    expect([parseCron('60 7 * * *')]).toEqual([{ ok: false, message: 'minute: "60" is outside 0-59' }]); // { ok: false, message: 'minute: "60" is outside 0-59' }
  });

  it('nextCronRun', async () => {
    const cron = parseCron('30 7 * * 1-5');
    const friday = Date.UTC(2026, 3, 10, 7, 30);
    if (cron.ok)
      expect([new Date(nextCronRun(cron.value, friday) ?? 0).toISOString()]).toEqual([
        '2026-04-13T07:30:00.000Z',
      ]); // 2026-04-13T07:30:00.000Z
  });

  it('previousCronRun', async () => {
    const cron = parseCron('30 7 * * 1-5');
    const sunday = Date.UTC(2026, 3, 12, 12, 0);
    if (cron.ok)
      expect([new Date(previousCronRun(cron.value, sunday) ?? 0).toISOString()]).toEqual([
        '2026-04-10T07:30:00.000Z',
      ]); // 2026-04-10T07:30:00.000Z
  });

  it('CronFire', async () => {
    const fire: CronFire = {
      scheduledAt: Date.UTC(2026, 3, 10, 7, 30),
      firedAt: Date.UTC(2026, 3, 10, 7, 31),
      skipped: 0,
    };
    expect(fire.firedAt - fire.scheduledAt).toBe(60_000);
  });

  it('MAX_COUNTED_SKIPS', async () => {
    expect([MAX_COUNTED_SKIPS]).toEqual([10000]); // 10000
  });
});

describe('define.ts examples', () => {
  it('DEFAULT_NODE_TIMEOUT_MS', async () => {
    expect([DEFAULT_NODE_TIMEOUT_MS / 60_000]).toEqual([15]); // 15
  });

  it('MAX_PIPELINE_NODES', async () => {
    expect([MAX_PIPELINE_NODES]).toEqual([200]); // 200
  });

  it('definePipeline', async () => {
    const pipeline = definePipeline({
      name: 'daily',
      owner: 'quant_strategist',
      nodes: [
        { id: 'bull', kind: 'task', agent: 'bullish_researcher' },
        { id: 'bear', kind: 'task', agent: 'bearish_researcher' },
        {
          id: 'converge',
          kind: 'task',
          agent: 'quant_strategist',
          action: 'self',
          dependsOn: ['bull', 'bear'],
        },
      ],
    });
    expect([pipeline.nodes.map((n) => n.id)]).toEqual([['bull', 'bear', 'converge']]); // ['bull', 'bear', 'converge']
  });
});

describe('dsl.ts examples', () => {
  it('ParsePipelineResult', async () => {
    const refused: ParsePipelineResult = { ok: false, issues: ['steps[0].agent: expected text'] };
  });

  it('parsePipeline', async () => {
    const result = parsePipeline({
      name: 'daily_quant_pipeline',
      trigger: 'cron "30 7 * * 1-5"',
      owner: 'quant_strategist',
      steps: [
        { id: 'converge', agent: 'quant_strategist', action: 'self', output: 'Strategy_Thesis.json' },
        {
          id: 'review',
          agent: 'reviewer',
          action: 'spawn',
          depends_on: ['converge'],
          on_revise: 'retry(converge, max=3)',
          on_block: 'escalate(ceo_coo)',
        },
        {
          id: 'approve',
          type: 'hitl',
          channel: '#approvals',
          depends_on: ['review'],
          condition: 'review.verdict == "pass"',
        },
      ],
    });
    expect([result.ok && result.value.nodes.map((n) => n.kind)]).toEqual([['task', 'review', 'approval']]); // ['task', 'review', 'approval']
  });
});

describe('errors.ts examples', () => {
  it('PIPELINE_ERROR_CODES', async () => {
    expect([PIPELINE_ERROR_CODES.includes('invalid_definition')]).toEqual([true]); // true
  });

  it('PipelineErrorCode', async () => {
    const code: PipelineErrorCode = 'invalid_argument';
  });

  it('PipelineError', async () => {
    try {
      definePipeline({ name: 'p', nodes: [{ id: 'a', kind: 'task', agent: 'x', dependsOn: ['nowhere'] }] });
    } catch (err) {
      expect([isParleyError(err, 'invalid_definition')]).toEqual([true]); // true
    }
  });

  it('RUN_REFUSAL_CODES', async () => {
    expect([RUN_REFUSAL_CODES.includes('corrupt_record')]).toEqual([true]); // true
  });

  it('RunRefusalCode', async () => {
    const code: RunRefusalCode = 'run_exists';
  });
});

describe('mermaid.ts examples', () => {
  it('toPipelineMermaid', async () => {
    const pipeline = definePipeline({
      name: 'p',
      nodes: [
        { id: 'draft', kind: 'task', agent: 'writer' },
        { id: 'ok', kind: 'approval', dependsOn: ['draft'] },
      ],
    });
    expect([toPipelineMermaid(pipeline, { draft: 'done' }).includes('class draft done')]).toEqual([true]); // true
  });
});

describe('plan.ts examples', () => {
  it('RunPlan', async () => {
    const plan: RunPlan = { start: ['bull', 'bear'], skip: [], finished: false };
  });

  it('planRun', async () => {
    const pipeline = definePipeline({
      name: 'p',
      nodes: [
        { id: 'a', kind: 'task', agent: 'x' },
        { id: 'b', kind: 'task', agent: 'y', dependsOn: ['a'] },
        { id: 'c', kind: 'task', agent: 'z', dependsOn: ['a'] },
      ],
    });
    const done = { v: 1, status: 'done', attempts: 1, spawns: 1, revision: 0, failures: {} } as const;
    expect([planRun(pipeline, { a: done }).start]).toEqual([['b', 'c']]); // ['b', 'c']
  });
});

describe('records.ts examples', () => {
  it('NODE_STATUSES', async () => {
    expect([NODE_STATUSES.length]).toEqual([8]); // 8
  });

  it('NodeStatus', async () => {
    const status: NodeStatus = 'waiting';
  });

  it('RunStatus', async () => {
    const status: RunStatus = 'escalated';
  });

  it('NodeRecord', async () => {
    const record: NodeRecord = {
      v: 1,
      status: 'done',
      attempts: 1,
      spawns: 1,
      revision: 0,
      failures: {},
      output: { verdict: 'pass' },
    };
  });

  it('ReviseRequest', async () => {
    const request: ReviseRequest = { round: 1, issues: [{ description: 'No stop loss' }], attempt: 1 };
  });

  it('RunRecord', async () => {
    const run: RunRecord = { v: 1, name: 'daily', digest: '0badf00d', status: 'running', createdAt: 0 };
  });
});

describe('retry-context.ts examples', () => {
  it('RetryContext', async () => {
    const retry: RetryContext = {
      kind: 'invalid_output',
      message: 'invalidation: Required',
      missingFields: ['invalidation'],
      clarification: {
        previous_report: { thesis: 'up' },
        missing_fields: ['invalidation'],
        question: 'Fill in invalidation and deliver Bullish_Brief.json again, complete.',
      },
    };
  });
});

describe('runner-types.ts examples', () => {
  it('NodeContext', async () => {
    const work = (ctx: NodeContext): unknown =>
      ctx.node.kind === 'review' ? { verdict: 'pass' } : { from: ctx.node.agent, attempt: ctx.attempt };
  });

  it('PipelineRunnerOptions', async () => {
    const options: PipelineRunnerOptions = { store: createMemoryStore(), work: () => ({ ok: true }) };
  });

  it('StartRunOptions', async () => {
    const options: StartRunOptions = {
      runId: 'daily-2026-04-10',
      parent: 'quant_strategist',
      input: { market: 'BTC/USDT' },
    };
  });

  it('RunResult', async () => {
    const result: RunResult = { ok: false, runId: 'r1', code: 'run_exists', message: 'Run r1 exists' };
  });

  it('ApprovalDecision', async () => {
    const decision: ApprovalDecision = { approved: true, by: 'chairman', reason: 'Go, at half size.' };
  });

  it('PipelineRunnerEvents', async () => {
    const line = (e: PipelineRunnerEvents['node']): string => `${e.node}: ${e.previous} → ${e.status}`;
  });

  it('PipelineRunner', async () => {
    const runner: PipelineRunner = createPipelineRunner({ store: createMemoryStore(), work: () => ({}) });
    await runner.close();
  });
});

describe('runner.ts examples', () => {
  it('createPipelineRunner', async () => {
    const pipeline = definePipeline({
      name: 'brief',
      nodes: [
        { id: 'draft', kind: 'task', agent: 'writer' },
        { id: 'review', kind: 'review', agent: 'editor', reviews: 'draft', dependsOn: ['draft'] },
      ],
    });
    const runner = createPipelineRunner({
      store: createMemoryStore(),
      clock: createManualClock(),
      work: (ctx) =>
        ctx.node.kind === 'review'
          ? ctx.outputs['draft'] === 'v2'
            ? { verdict: 'pass' }
            : { verdict: 'revise', issues: [{ description: 'Too short' }] }
          : ctx.revision === undefined
            ? 'v1'
            : 'v2',
    });
    const result = await runner.start(pipeline, { runId: 'r1' });
    expect([result.ok && result.status, result.ok && result.nodes['draft']?.output]).toEqual([
      'succeeded',
      'v2',
    ]); // succeeded v2
  });
});

describe('session-tools.ts examples', () => {
  it('SESSION_TOOLS', async () => {
    expect([SESSION_TOOLS.includes('sessions_send')]).toEqual([true]); // true
  });

  it('SessionTool', async () => {
    const tool: SessionTool = 'sessions_spawn';
  });

  it('sessionToolsAt', async () => {
    expect([sessionToolsAt(1, 1)]).toEqual([[]]); // []
    expect([sessionToolsAt(1, 2)]).toEqual([
      ['sessions_spawn', 'subagents', 'sessions_list', 'sessions_history'],
    ]); // ['sessions_spawn', 'subagents', 'sessions_list', 'sessions_history']
    expect([sessionToolsAt(2, 2)]).toEqual([[]]); // []
  });
});

describe('types.ts examples', () => {
  it('FAILURE_KINDS', async () => {
    expect([FAILURE_KINDS]).toEqual([['timeout', 'error', 'invalid_output', 'refused']]); // ['timeout', 'error', 'invalid_output', 'refused']
  });

  it('FailureKind', async () => {
    const kind: FailureKind = 'timeout';
  });

  it('NodeFailurePolicy', async () => {
    const modelErrors: NodeFailurePolicy = { retries: 1, after: 'abort' };
  });

  it('DEFAULT_FAILURE_POLICIES', async () => {
    expect([DEFAULT_FAILURE_POLICIES.error]).toEqual([{ retries: 1, after: 'abort' }]); // { retries: 1, after: 'abort' }
  });

  it('NodeCondition', async () => {
    const passed: NodeCondition = { node: 'review', field: 'verdict', op: '==', value: 'pass' };
  });

  it('NodeBase', async () => {
    const base: NodeBase = { id: 'structure', dependsOn: ['intel'] };
  });

  it('TaskNode', async () => {
    const intel: TaskNode = {
      id: 'intel',
      kind: 'task',
      agent: 'finance_researcher',
      output: 'Finance_Research_Brief.json',
    };
  });

  it('ReviewNode', async () => {
    const review: ReviewNode = {
      id: 'review',
      kind: 'review',
      agent: 'reviewer',
      reviews: 'converge',
      dependsOn: ['converge'],
      maxRevisions: 3,
      escalateTo: 'ceo_coo',
    };
  });

  it('ApprovalNode', async () => {
    const approve: ApprovalNode = {
      id: 'approve',
      kind: 'approval',
      channel: '#approvals',
      dependsOn: ['review'],
    };
  });

  it('PipelineNode', async () => {
    const node: PipelineNode = { id: 'approve', kind: 'approval' };
  });

  it('PipelineInit', async () => {
    const init: PipelineInit = {
      name: 'daily',
      trigger: { cron: '30 7 * * 1-5' },
      nodes: [{ id: 'a', kind: 'task', agent: 'x' }],
    };
  });

  it('PipelineDefinition', async () => {
    const pipeline: PipelineDefinition = definePipeline({
      name: 'p',
      nodes: [{ id: 'a', kind: 'approval' }],
    });
    expect([pipeline.nodes[0]?.timeoutMs]).toEqual([900000]); // 900000
  });
});

describe('node-step.ts examples', () => {
  it('NodeEvent', async () => {
    const skip: NodeEvent = { type: 'skip', reason: 'bull failed', lifeMs: 7 * 24 * 3_600_000 };
  });

  it('NodeEffect', async () => {
    const effect: NodeEffect = { type: 'stale', status: 'done' };
  });

  it('nodeStep', async () => {
    const lifeMs = 60_000;
    const started = nodeStep(
      undefined,
      { type: 'start', spawnId: undefined, spawned: false, revisedFor: undefined, lifeMs },
      0,
    );
    const done = nodeStep(started.value, { type: 'end', status: 'done', output: 'brief', lifeMs }, 5);
    expect([done.value?.status, done.value?.attempts]).toEqual(['done', 1]); // done 1
    const again = nodeStep(done.value, { type: 'skip', reason: 'late', lifeMs }, 6);
    expect([again.effects]).toEqual([[{ type: 'stale', status: 'done' }]]); // [ { type: 'stale', status: 'done' } ]
  });
});

describe('records.ts: NODE_RECORD', () => {
  it('NODE_RECORD', async () => {
    const kernel = createKernel({ store: createMemoryStore() });
    const node = await kernel.read('pipeline:node:r1:intel', NODE_RECORD);
    expect([NODE_RECORD.kind, node]).toEqual(['parley.pipeline.node', undefined]); // parley.pipeline.node undefined
  });

  it('RUN_RECORD', async () => {
    const kernel = createKernel({ store: createMemoryStore() });
    const run = await kernel.read('pipeline:run:r1', RUN_RECORD);
    expect([RUN_RECORD.kind, run]).toEqual(['parley.pipeline.run', undefined]); // parley.pipeline.run undefined
  });

  it('afterFailure (failure-policy.ts)', async () => {
    expect([afterFailure({}, {}, 'error')]).toEqual(['retry']); // retry
    expect([afterFailure({}, { error: 1 }, 'error')]).toEqual(['abort']); // abort
    expect([afterFailure({ onFailure: { timeout: { retries: 0, after: 'skip' } } }, {}, 'timeout')]).toEqual([
      'skip',
    ]); // skip
  });

  it('revisionOrder (revision.ts)', () => {
    const pipeline = definePipeline({
      name: 'brief',
      nodes: [
        { id: 'research', kind: 'task', agent: 'analyst' },
        { id: 'draft', kind: 'task', agent: 'writer', dependsOn: ['research'] },
        { id: 'review', kind: 'review', agent: 'editor', reviews: 'draft', dependsOn: ['draft'] },
      ],
    });
    expect(revisionOrder(pipeline, 'review', 'analyst')).toEqual(['research', 'draft']);
    expect(revisionOrder(pipeline, 'review', undefined)).toEqual(['draft']);
    expect(revisionOrder(pipeline, 'draft', undefined)).toEqual([]); // not a review node
  });

  it('toReviseRequest (records.ts)', () => {
    const output = { verdict: 'revise', revise_target: 'analyst', issues: [{ description: 'no sources' }] };
    expect(toReviseRequest(output, 1, 2)?.target).toBe('analyst');
    expect(toReviseRequest({ verdict: 'pass' }, 1, 2)).toBeUndefined();
  });
});

describe('attempt-step.ts and spawn-step.ts', () => {
  it('AttemptOutcome, AttemptState, AttemptEvent, AttemptEffect', () => {
    const outcome: AttemptOutcome = { kind: 'timeout', message: 'no result within 60000 ms' };
    const state: AttemptState = { startedAt: 0, deadlineAt: 60_000, timeoutMs: 60_000 };
    const events: AttemptEvent[] = [{ type: 'start', timeoutMs: 60_000 }, { type: 'timer' }];
    const effect: AttemptEffect = { type: 'abort', reason: 'no result within 60000 ms' };
    expect([outcome.kind, state.deadlineAt, events.length, effect.type]).toEqual([
      'timeout',
      60_000,
      2,
      'abort',
    ]);
  });

  it('attemptStep', () => {
    const started = attemptStep(undefined, { type: 'start', timeoutMs: 1_000 }, 0);
    expect([started.effects]).toEqual([[{ type: 'wait', deadlineAt: 1000 }]]); // [ { type: 'wait', deadlineAt: 1000 } ]
    const timedOut = attemptStep(started.value, { type: 'timer' }, 1_000);
    expect([timedOut.value?.outcome]).toEqual([{ kind: 'timeout', message: 'no result within 1000 ms' }]); // { kind: 'timeout', message: 'no result within 1000 ms' }
    const late = attemptStep(timedOut.value, { type: 'result', value: 'draft' }, 1_500);
    expect([late.effects]).toEqual([[{ type: 'ignored', code: 'late_result' }]]); // [ { type: 'ignored', code: 'late_result' } ]
  });

  it('AttemptSpawn, SpawnVerdict', () => {
    const ask: AttemptSpawn = {
      parent: 'quant_strategist',
      id: 'r1/bull-1',
      role: 'bullish_researcher',
      spawn: 1,
    };
    const verdict: SpawnVerdict = { ok: false, kind: 'refused', message: 'depth_exceeded: too deep' };
    expect([ask.spawn, verdict.ok]).toEqual([1, false]);
  });

  it('attemptSpawn', () => {
    const node = { id: 'bull', agent: 'bullish_researcher' };
    expect([attemptSpawn({ runId: 'r1', node, spawns: 0, parent: 'quant_strategist' })]).toEqual([
      { parent: 'quant_strategist', id: 'r1/bull-1', role: 'bullish_researcher', spawn: 1 },
    ]); // { parent: 'quant_strategist', id: 'r1/bull-1', role: 'bullish_researcher', spawn: 1 }
    expect([
      attemptSpawn({ runId: 'r1', node: { ...node, action: 'self' }, spawns: 0, parent: 'x' }),
    ]).toEqual([undefined]); // undefined
  });

  it('spawnVerdict', () => {
    const topology = createTopology({ maxSpawnDepth: 1 });
    topology.register({ id: 'ceo' });
    expect([spawnVerdict(topology.spawn({ parent: 'ceo', id: 'lead' }))]).toEqual([{ ok: true, depth: 1 }]); // { ok: true, depth: 1 }
    const refused = spawnVerdict(topology.spawn({ parent: 'lead', id: 'intern' }));
    expect([refused.ok ? refused.depth : refused.message]).toEqual([
      'depth_exceeded: A run at depth 2 exceeds maxSpawnDepth 1',
    ]); // depth_exceeded: A run at depth 2 exceeds maxSpawnDepth 1
  });
});
