// `runQuantPipeline`: one scripted run of the pipeline, end to end, on simulated time. It wires
// the host (topology, codecs), the correlators (strategist ↔ sessions runtime, CEO ↔ chairman),
// the fakes and the scheduler, drives the manual clock until the pipeline settles, closes every
// correlator and timer, and returns the final state with the transcript.
import { createManualClock, createSequentialIds, type IdGenerator, type ManualClock } from '@parley/core';
import { type CorrelateMessage, createCorrelator } from '@parley/correlate';
import { nextCronRun, parseCron } from '@parley/pipeline';
import { type ChairmanDecision, createFakeChairman, createFakeSessions } from './fakes.js';
import { DAILY_QUANT_PIPELINE, parsePipeline } from './pipeline.js';
import { APPROVAL_TIMEOUT_MS, planApprovalProtocol, sessionsSpawnProtocol } from './protocols.js';
import { findScenario, type Scenario, SCENARIOS } from './scenarios.js';
import { runDag, type StepRecord } from './scheduler.js';
import { createSpawner } from './spawner.js';
import { createStepExecutor, type StepState } from './steps.js';
import { createTranscript } from './transcript.js';
import { CEO, CHAIRMAN, createHost, SESSIONS, STRATEGIST } from './wiring.js';

/** 2026-04-10 07:30 UTC, the Friday of the document, when the cron would fire. */
export const DEMO_START = Date.UTC(2026, 3, 10, 7, 30);

export interface RunOptions {
  /** A scenario or its name; `happy` by default. */
  readonly scenario?: Scenario | string;
  /** Simulated time; moved forward by the run itself. */
  readonly clock?: ManualClock;
  /** Envelope ids; `env_1`, `env_2`… by default. */
  readonly generateId?: IdGenerator;
  /** Receives each transcript line as it is written. */
  readonly output?: (line: string) => void;
  /** A person answering in #approvals (`--interactive`); the scenario's scripted answer otherwise. */
  readonly chairman?: (plan: string) => Promise<ChairmanDecision>;
  /** The topology's concurrency limit (spawned runs alive at once, the strategist included). */
  readonly maxConcurrent?: number;
  /** The pipeline definition; the document's by default. */
  readonly pipeline?: unknown;
}

export type PipelineStatus = 'approved' | 'rejected' | 'escalated' | 'failed' | 'expired';

export interface PipelineRunResult {
  readonly status: PipelineStatus;
  readonly steps: Readonly<Record<string, StepRecord>>;
  /** Run ids spawned per step, in order. */
  readonly runs: Readonly<Record<string, readonly string[]>>;
  readonly state: StepState;
  /** Spawn-tree events in order: `spawned <id>` / `finished <id>`. */
  readonly timeline: readonly string[];
  /** The most spawned runs alive at once (the strategist included). */
  readonly maxRunning: number;
  /** Every notify that reached a Discord channel. */
  readonly notifications: readonly { readonly channel: string; readonly message: string }[];
  /** Correlator refusals (`late` announces and the like): `code from requestId`. */
  readonly refusals: readonly string[];
  readonly transcript: readonly string[];
}

/** Runs one scenario of the pipeline and resolves with its final state and transcript. */
export async function runQuantPipeline(options: RunOptions = {}): Promise<PipelineRunResult> {
  const scenario = typeof options.scenario === 'object' ? options.scenario : pickScenario(options.scenario);
  const parsed = parsePipeline(options.pipeline ?? DAILY_QUANT_PIPELINE);
  if (!parsed.ok) throw new Error(`Invalid pipeline:\n${parsed.issues.join('\n')}`);
  const pipeline = parsed.value;
  const clock = options.clock ?? createManualClock({ now: DEMO_START });
  const transcript = createTranscript(clock, options.output);
  const refTask = `quant-pipeline-${new Date(clock.now()).toISOString().slice(0, 10)}`;
  const host = createHost({
    clock,
    transcript,
    refTask,
    generateId: options.generateId ?? createSequentialIds('env_'),
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
  });
  const timeline: string[] = [];
  let maxRunning = 0;
  host.topology.on('spawned', ({ agent }) => {
    timeline.push(`spawned ${agent.id}`);
    maxRunning = Math.max(maxRunning, host.topology.running());
  });
  host.topology.on('finished', ({ id }) => void timeline.push(`finished ${id}`));

  // The wire: messages are delivered on a later microtask, as a transport would.
  const refusals: string[] = [];
  const send = (message: CorrelateMessage): void => {
    void Promise.resolve().then(() => deliver(message));
  };
  const strategist = createCorrelator({
    self: STRATEGIST,
    protocols: [sessionsSpawnProtocol],
    send,
    clock,
    generateId: createSequentialIds('spawn_'),
    retainSettledMs: 60 * 60_000, // long enough that a late announce is recognised as `late`
  });
  const ceo = createCorrelator({
    self: CEO,
    protocols: [planApprovalProtocol],
    send,
    clock,
    generateId: createSequentialIds('approval_'),
  });
  const sessions = createFakeSessions(host, scenario, send);
  const external = new Set<Promise<unknown>>();
  const ask = options.chairman;
  const chairman = createFakeChairman(host, send, (plan) => {
    if (ask === undefined) {
      const { afterMs, ...decision } = scenario.chairman;
      return { afterMs, decision };
    }
    const answer = ask(plan);
    external.add(answer);
    void answer.finally(() => external.delete(answer));
    return answer;
  });
  for (const correlator of [strategist, ceo]) {
    correlator.on('refused', (refusal) => {
      refusals.push(`${refusal.code} ${refusal.from} ${refusal.requestId}`);
      transcript.log(
        `  ⛔ ${correlator.self} refused a ${refusal.kind} from ${refusal.from} (${refusal.requestId}): ${refusal.code}`,
      );
    });
  }
  function deliver(message: CorrelateMessage): void {
    if (message.to === SESSIONS) sessions.receive(message);
    else if (message.to === STRATEGIST) void strategist.receive(message);
    else if (message.to === CEO) void ceo.receive(message);
    else if (message.to === CHAIRMAN) void chairman.correlator.receive(message);
  }

  const source = pipeline.trigger?.cron ?? '';
  const parsedCron = parseCron(source);
  const cron = parsedCron.ok ? parsedCron.value : undefined;
  const next = cron === undefined ? undefined : nextCronRun(cron, clock.now());
  transcript.log(
    `▶ ${pipeline.name} (owner ${pipeline.owner}) — scenario "${scenario.name}": ${scenario.title}`,
  );
  transcript.log(
    `  trigger cron "${source}": ${cron?.description ?? 'none'}; next scheduled ${next === undefined ? 'never' : new Date(next).toISOString().slice(0, 16).replace('T', ' ')} UTC — this run: on demand`,
  );
  const state: StepState = { reviewRounds: 0, thesisVersions: 0 };
  const spawner = createSpawner(host, strategist);
  const execute = createStepExecutor({
    host,
    pipeline,
    scenario,
    spawner,
    ceo,
    approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
    state,
  });

  let steps: Readonly<Record<string, StepRecord>>;
  try {
    host.topology.spawn({ parent: CEO, id: STRATEGIST, role: STRATEGIST });
    host.post(
      host.codec('Pipeline_Summary.json').create('assign_task', {
        from: CEO,
        to: STRATEGIST,
        ref_task: refTask,
        payload: { task: `Run ${pipeline.name}`, output: 'Pipeline_Summary.json' },
      }),
    );
    steps = await drive(clock, runDag(pipeline, execute, transcript.log), () =>
      external.size === 0 ? undefined : Promise.race(external),
    );
  } finally {
    host.topology.finish(STRATEGIST);
    sessions.close();
    chairman.close();
    strategist.close();
    ceo.close();
  }

  const status: PipelineStatus =
    state.approval !== undefined
      ? state.approval.state === 'approved'
        ? 'approved'
        : state.approval.state === 'rejected'
          ? 'rejected'
          : 'expired'
      : Object.values(steps).some((step) => step.status === 'escalated')
        ? 'escalated'
        : 'failed';
  transcript.log(`■ ${pipeline.name}: ${status}`);
  return {
    status,
    steps,
    runs: Object.fromEntries(spawner.runs),
    state,
    timeline,
    maxRunning,
    notifications: host.notifications,
    refusals,
    transcript: transcript.lines,
  };
}

function pickScenario(name = 'happy'): Scenario {
  const scenario = findScenario(name);
  if (scenario === undefined) {
    throw new Error(`Unknown scenario "${name}"; one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  return scenario;
}

/**
 * Simulated time: lets every pending callback run, then moves the clock to the next timer, until
 * `work` settles. While a person is answering (`external`), it waits for them instead.
 */
async function drive<T>(
  clock: ManualClock,
  work: Promise<T>,
  external: () => Promise<unknown> | undefined,
): Promise<T> {
  let settled = false;
  work.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve)); // every queued callback runs first
    if (settled) break;
    const person = external();
    if (person !== undefined) {
      await person.catch(() => {});
      continue;
    }
    if (!clock.runNext()) throw new Error('The pipeline is stuck: nothing pending and no timer due');
  }
  return work;
}
