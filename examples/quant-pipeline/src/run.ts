// `runQuantPipeline`: one scripted morning of the pipeline on simulated time. The pipeline's cron
// trigger fires on the manual clock and starts the run; @parley/pipeline's runner schedules the
// steps, spawns them into the topology within its limits, applies the error table, runs both
// review gates and waits for the chairman, keeping every step's state in the Store. This file
// wires the pieces, drives the clock until the run ends and reports what happened.
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { defineArtifacts } from '@parley/envelope';
import { createCronTrigger, createPipelineRunner, type NodeRecord, type RunResult } from '@parley/pipeline';
import { ARTIFACT_SCHEMAS } from './artifacts.js';
import { CEO, createHost, STRATEGIST } from './host.js';
import type { ChairmanAnswer, ChatRoom } from './discord.js';
import { type ChairmanDecision, narrate } from './narrate.js';
import { DAILY_QUANT_PIPELINE, parsePipeline } from './pipeline.js';
import { findScenario, type Scenario, SCENARIOS } from './scenarios.js';
import { createSecretary } from './secretary.js';
import { clockTime, createTranscript } from './transcript.js';

/** Friday 2026-04-10 07:00 UTC, the document's day, half an hour before the cron fires. */
export const DEMO_START = Date.UTC(2026, 3, 10, 7, 0);

export interface RunOptions {
  /** A scenario or its name; `happy` by default. */
  readonly scenario?: Scenario | string;
  /** Simulated time, moved forward by the run itself; {@link DEMO_START} by default. */
  readonly clock?: ManualClock;
  /** Where the runner keeps every step's state; a fresh memory store by default. */
  readonly store?: Store;
  readonly output?: (line: string) => void;
  /** A person answering in #approvals (`--interactive`); the scenario's scripted answer otherwise. */
  readonly chairman?: (plan: string) => Promise<ChairmanDecision>;
  /** The topology's concurrency limit (spawned runs alive at once, the strategist included). */
  readonly maxConcurrent?: number;
  readonly pipeline?: unknown;
  /**
   * The markets to run the pipeline for when the cron fires: one run each, side by side on one
   * runner and one spawn tree (the CEO manages several pipelines); `['BTC/USDT']` by default.
   */
  readonly markets?: readonly string[];
  /**
   * Where #approvals and #errors are: nowhere but the transcript by default; `discord` posts them
   * to Discord (the stand-in of @parley/chat-sdk/testing) through @parley/chat-sdk, and the
   * chairman decides there by a click or a typed 确认 (`answerBy`).
   */
  readonly platform?: 'discord';
  readonly answerBy?: ChairmanAnswer;
}

export type PipelineStatus = 'approved' | 'rejected' | 'escalated' | 'failed' | 'expired';

export interface PipelineRunResult {
  readonly status: PipelineStatus;
  readonly runId: string; // quant-pipeline-<the day the cron fired>
  readonly steps: Readonly<Record<string, NodeRecord>>;
  readonly runs: Readonly<Record<string, readonly string[]>>; // spawned run ids per step
  readonly timeline: readonly string[]; // `spawned <id>` / `finished <id>`
  readonly maxRunning: number; // spawned runs alive at once, the strategist included
  readonly notifications: readonly { readonly channel: string; readonly message: string }[];
  readonly transcript: readonly string[];
  /** With `platform: 'discord'`: every message the bot posted to Discord, with its channel. */
  readonly discord?: ChatRoom['posted'];
  /** Every run the cron started (one per market), in order; the fields above describe the first. */
  readonly sideBySide: readonly {
    readonly runId: string;
    readonly market: string;
    readonly status: PipelineStatus;
    readonly steps: Readonly<Record<string, NodeRecord>>;
  }[];
}

/** Runs one scenario of the pipeline and resolves with its final state and transcript. */
export async function runQuantPipeline(options: RunOptions = {}): Promise<PipelineRunResult> {
  const named =
    typeof options.scenario === 'object' ? options.scenario : findScenario(options.scenario ?? 'happy');
  if (named === undefined)
    throw new Error(
      `Unknown scenario "${options.scenario}"; one of ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  const scenario = named;
  const parsed = parsePipeline(options.pipeline ?? DAILY_QUANT_PIPELINE);
  if (!parsed.ok) throw new Error(`Invalid pipeline:\n${parsed.issues.join('\n')}`);
  const pipeline = parsed.value;
  const clock = options.clock ?? createManualClock({ now: DEMO_START });
  const transcript = createTranscript(clock, options.output);
  const day = (at: number): string => new Date(at).toISOString().slice(0, 10);
  const refTask = `quant-pipeline-${day(clock.now())}`;
  const host = createHost({ clock, transcript, scenario, refTask, maxConcurrent: options.maxConcurrent });
  const timeline: string[] = [];
  let maxRunning = 0;
  host.topology.on('spawned', ({ agent }) => {
    timeline.push(`spawned ${agent.id}`);
    maxRunning = Math.max(maxRunning, host.topology.running());
  });
  host.topology.on('finished', ({ id }) => void timeline.push(`finished ${id}`));
  const runs: Record<string, string[]> = {};
  const markets = options.markets ?? ['BTC/USDT'];
  const slug = (market: string): string => market.split('/')[0]?.toLowerCase() ?? market;
  const store = options.store ?? createMemoryStore({ clock });
  const runner = createPipelineRunner({
    store,
    clock,
    runnerId: 'quant-host',
    work: host.work,
    artifacts: defineArtifacts(ARTIFACT_SCHEMAS),
    topology: host.topology,
    spawnId: ({ runId, node, spawn }) => {
      const market = markets.length > 1 ? `${runId.split('-').at(-1)}-` : '';
      const id = `${market}${node}-${spawn}`;
      runs[node] = [...(runs[node] ?? []), id];
      return id;
    },
  });
  const external = new Set<Promise<unknown>>();
  const chairman = options.chairman ?? scenario.chairman;
  // Loaded only for Discord, so that the default run needs nothing of the Chat SDK.
  const room: ChatRoom | undefined =
    options.platform === 'discord' ? await (await import('./discord.js')).startDiscordRoom(clock) : undefined;
  const answerBy = options.answerBy;
  const stop = narrate({ runner, pipeline, host, clock, transcript, chairman, external, room, answerBy });

  transcript.log(
    `▶ ${pipeline.name} (owner ${pipeline.owner}) — scenario "${scenario.name}": ${scenario.title}`,
  );
  const secretary = createSecretary(host.topology, clock, transcript);
  let run: Promise<RunResult[]> | undefined;
  const fire = async (at: number): Promise<RunResult[]> => {
    await secretary.askForSummary(); // the CEO is depth 0: it may wait for the secretary's reply
    host.topology.spawn({ parent: CEO, id: STRATEGIST, role: STRATEGIST });
    await secretary.strategistTriesToSend(); // a spawned run may not
    const started = markets.map((market) => {
      const runId = `quant-pipeline-${day(at)}${markets.length > 1 ? `-${slug(market)}` : ''}`;
      const payload = { task: `Run ${pipeline.name} for ${market}`, output: 'Pipeline_Summary.json' };
      host.post(host.envelope('assign_task', { from: CEO, to: STRATEGIST, payload }));
      return runner.start(pipeline, { runId, input: { market, date: day(at) } });
    });
    return Promise.all(started);
  };
  const trigger = pipeline.trigger?.cron ?? '30 7 * * 1-5';
  const cron = createCronTrigger({
    cron: trigger,
    clock,
    // Every replica of the host may run this trigger: the record in the store lets one fire a day.
    store,
    key: `cron:${pipeline.name}`,
    onError: (error) => transcript.log(`⚠ cron: ${String(error)}`),
    onFire: (at) => {
      cron.stop(); // one run per scenario; a host would keep it armed for tomorrow
      transcript.log(`⏰ cron "${trigger}" fired (scheduled ${clockTime(at)} UTC): start the run`);
      run = fire(at);
    },
  });
  const next = cron.next() as number;
  const at = `${day(next)} ${clockTime(next).slice(0, 5)} UTC`;
  transcript.log(`  trigger cron "${trigger}": next ${at} — the run starts when it fires`);
  let results: RunResult[];
  try {
    results = await drive(clock, () => run, external);
  } finally {
    cron.stop();
    await runner.close();
    stop();
    secretary.close();
    if (run !== undefined) host.topology.finish(STRATEGIST);
    await room?.close();
  }
  const sideBySide = results.map((result, i) => {
    if (!result.ok) throw new Error(`The run was refused: ${result.code} (${result.message})`);
    const status: PipelineStatus =
      result.status === 'succeeded'
        ? 'approved'
        : result.status === 'failed' && result.nodes['approve']?.code === 'expired'
          ? 'expired'
          : result.status;
    const suffix = markets.length > 1 ? ` (${result.runId})` : '';
    transcript.log(`■ ${pipeline.name}${suffix}: ${status}`);
    return { runId: result.runId, market: markets[i] ?? '', status, steps: result.nodes };
  });
  const { runId, status, steps } = sideBySide[0] as (typeof sideBySide)[number];
  return {
    status,
    runId,
    steps,
    runs,
    sideBySide,
    timeline,
    maxRunning,
    notifications: host.notifications,
    transcript: transcript.lines,
    ...(room === undefined ? {} : { discord: room.posted }),
  };
}

/**
 * Simulated time: lets every pending callback run, then moves the clock to the next timer, until
 * the run (started when the cron fires) settles. While a person is answering, it waits for them.
 */
async function drive<T>(
  clock: ManualClock,
  run: () => Promise<T> | undefined,
  external: Set<Promise<unknown>>,
): Promise<T> {
  let watched: Promise<T> | undefined;
  let settled = false;
  for (;;) {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const current = run();
    if (current !== undefined && current !== watched) {
      watched = current;
      void current.finally(() => (settled = true)).catch(() => {});
      continue;
    }
    if (watched !== undefined && settled) return watched;
    const person = [...external][0];
    if (person !== undefined) await person.catch(() => {});
    else if (!clock.runNext()) throw new Error('The pipeline is stuck: nothing pending and no timer due');
  }
}
