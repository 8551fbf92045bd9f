// The host's wiring: the spawn tree (@parley/envelope topology) the runner spawns into, the codec
// every envelope between agents goes through (checked against the tree: upward announces only,
// no blocking sends below depth 0, no depth lies), and the scripted agents as the runner's work.
// What a step's agent does is the scenario's; everything around it is @parley/pipeline's.
import type { ManualClock } from '@parley/core';
import {
  createCodec,
  createTopology,
  defineAgentIntents,
  defineIntents,
  type Envelope,
  isPayloadRef,
  type Topology,
} from '@parley/envelope';
import type { NodeContext } from '@parley/pipeline';
import { ReviewReport } from './artifacts.js';
import type { AgentBehaviour, Scenario } from './scenarios.js';
import type { Transcript } from './transcript.js';

export const CEO = 'ceo_coo';
export const STRATEGIST = 'quant_strategist';
export const CHANNELS = ['#approvals', '#errors'] as const;

const TASKS: Readonly<Record<string, string>> = {
  intel: 'Research macro, events and sentiment for BTC/USDT',
  structure: 'Map the H4/H1 structure, key levels and liquidity',
  bull: 'Argue the bullish case with levels, evidence and invalidation',
  bear: 'Argue the bearish case with levels, evidence and invalidation',
  data_analysis: 'Backtest the thesis and analyse the results',
};

/** What each review node reads (§4.6): the strategy, and the backtest results. */
const REVIEWED: Readonly<Record<string, string>> = {
  converge: 'Strategy_Thesis.json',
  data_analysis: 'Data_Analysis_Report.json',
};

/** The document's eight intents; `review_verdict` carries Review_Report, escalations go to the CEO. */
function pipelineIntents() {
  const base = defineAgentIntents({ roles: { escalation: CEO } });
  return defineIntents({
    ...base.specs,
    review_verdict: { ...base.specs.review_verdict, payload: ReviewReport },
  });
}

export interface Host {
  readonly topology: Topology;
  /** Every notify that reached a channel, in order. */
  readonly notifications: readonly { readonly channel: string; readonly message: string }[];
  /** Encodes, decodes (as the recipient would) and routes an envelope; logs it or its refusal. */
  post(envelope: Envelope): { readonly ok: true; readonly payload: unknown } | { readonly ok: false };
  /** Builds an envelope of the pipeline's intents (checked on creation). */
  envelope(intent: string, fields: { from: string; to: string; payload: unknown; depth?: number }): Envelope;
  /** The runner's work: the step's scripted agent, reached through envelopes when it is spawned. */
  work(ctx: NodeContext): Promise<unknown>;
}

export interface HostOptions {
  readonly clock: ManualClock;
  readonly transcript: Transcript;
  readonly scenario: Scenario;
  readonly refTask: string;
  /** The topology's concurrency limit (spawned runs alive at once, the strategist included). */
  readonly maxConcurrent?: number;
}

export function createHost({ clock, transcript, scenario, refTask, maxConcurrent }: HostOptions): Host {
  const log = transcript.log;
  const topology = createTopology({ maxSpawnDepth: 2, maxConcurrent: maxConcurrent ?? 8, clock });
  topology.register({ id: CEO, role: CEO });
  for (const channel of CHANNELS) topology.register({ id: channel, role: 'notifier', kind: 'channel' });
  topology.on('refused', (e) => log(`  ⛔ topology refused ${e.action}: ${e.code} — ${e.message}`));
  topology.on('spawned', ({ agent }) => {
    if (agent.parent === STRATEGIST)
      log(`${STRATEGIST} spawns ${agent.role} as ${agent.id} (depth ${agent.depth})`);
  });
  const artifacts = new Map<string, unknown>(); // `${author}/${name}` → content, for `$ref` payloads
  let ids = 0;
  const codec = createCodec(pipelineIntents(), {
    directory: topology,
    clock,
    generateId: () => `env_${++ids}`,
    resolveRef: (ref, envelope) => artifacts.get(`${envelope.from}/${ref}`),
  });
  const notifications: { channel: string; message: string }[] = [];

  const host: Host = {
    topology,
    notifications,
    envelope: (intent, fields) =>
      codec.create(intent as never, {
        from: fields.from,
        to: fields.to,
        ref_task: refTask,
        payload: fields.payload as never,
        ...(fields.depth === undefined ? {} : { spawn_depth: fields.depth }),
      }),
    post(envelope) {
      const decoded = codec.decode(codec.encode(envelope));
      const route = decoded.ok ? topology.check(decoded.value) : decoded;
      if (!decoded.ok || !route.ok) {
        log(
          `  ⛔ ${envelope.from} → ${envelope.to} ${envelope.intent} refused: ${route.ok ? '' : route.code}`,
        );
        return { ok: false };
      }
      const payload = decoded.value.payload as Record<string, unknown>;
      const verdict = decoded.value.intent === 'review_verdict' ? ` → ${String(payload['verdict'])}` : '';
      log(`${envelope.from} → ${envelope.to}  ${describe(envelope)}${verdict}`);
      if (decoded.value.intent === 'notify')
        notifications.push({ channel: decoded.value.to, message: String(payload['message']) });
      return { ok: true, payload };
    },
    async work(ctx) {
      const { node, spawnId } = ctx;
      const script = scenario.agents[node.id] ?? [];
      const behaviour = script[Math.min(ctx.attempt, script.length) - 1];
      if (behaviour === undefined) throw new Error(`No script for step "${node.id}"`);
      const output = node.output ?? 'report.json';
      if (spawnId !== undefined) host.post(host.envelope(...assignment(ctx, output)));
      await sleep(clock, behaviour, ctx.signal);
      if (behaviour.kind === 'model_error') throw new Error(`model API error (${behaviour.message})`);
      if (spawnId === undefined) {
        const tools = `session tools: ${ctx.tools?.join(', ') || 'none'}`; // depth 1 (§4.2)
        log(
          `${STRATEGIST} (self) ${node.id} → ${output} v${ctx.attempt}: ${summary(behaviour.report)} [${tools}]`,
        );
        return forMarket(behaviour.report, ctx.input); // the strategist's own work: no envelope
      }
      // The announce is untrusted: decoded and routed like any peer's envelope, payload by reference.
      artifacts.set(`${spawnId}/${output}`, behaviour.report);
      const intent = node.kind === 'review' ? 'review_verdict' : 'deliver_report';
      const announce = host.post(
        host.envelope(intent, { from: spawnId, to: STRATEGIST, payload: { $ref: output }, depth: 2 }),
      );
      if (!announce.ok) throw new Error(`the announce of ${spawnId} was refused`);
      return announce.payload; // the runner checks it against the artifact's schema
    },
  };
  const assignment = (ctx: NodeContext, output: string): Parameters<Host['envelope']> => {
    const to = { from: STRATEGIST, to: ctx.spawnId as string, depth: 1 };
    // §4.4: a clarification re-spawn carries the previous report, the missing fields and the question.
    const clarification = ctx.retry?.clarification;
    if (clarification !== undefined) return ['request_clarification', { ...to, payload: clarification }];
    const notes = [ctx.retry?.message, ...(ctx.revision?.issues.map((i) => i.description) ?? [])];
    const context = {
      inputs: ctx.node.dependsOn,
      notes: notes.filter((n) => n !== undefined),
      session_tools: ctx.tools ?? [], // a spawned researcher (depth 2) is a leaf: none (§4.2)
    };
    if (ctx.node.kind === 'review') {
      const artifact = REVIEWED[ctx.node.reviews] ?? ctx.node.reviews;
      return ['review_request', { ...to, payload: { artifact, criteria: ['schema', 'risk logic'] } }];
    }
    return ['assign_task', { ...to, payload: { task: TASKS[ctx.node.id] ?? output, output, context } }];
  };
  return host;
}

/** Waits the behaviour's time on the clock; a slow agent ignores the runner's abort and runs late. */
function sleep(clock: ManualClock, behaviour: AgentBehaviour, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const slow = behaviour.kind === 'slow';
    const onAbort = (): void => clock.clearTimeout(timer); // the attempt is over: never resolves
    const timer = clock.setTimeout(() => {
      if (!slow) signal.removeEventListener('abort', onAbort);
      resolve();
    }, behaviour.afterMs);
    if (!slow) signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The scripted thesis for the run's market (runs side by side share the script). */
function forMarket(report: unknown, input: NodeContext['input']): unknown {
  const fields = input as Readonly<Record<string, unknown>> | null | undefined; // the run's input object
  const market = typeof fields === 'object' && fields !== null ? fields['market'] : undefined;
  return typeof report === 'object' && report !== null && market !== undefined
    ? { ...report, market }
    : report;
}

/** A thesis in one line: direction, stop, R:R and size. */
function summary(report: unknown): string {
  const t = report as Partial<Record<string, unknown>>;
  return `${String(t['direction'])}, stop ${String(t['stop_loss'])}, R:R ${String(t['risk_reward'])}, size ${String(t['position_size_pct'])}%`;
}

/** One line about an envelope for the transcript. */
function describe(envelope: Envelope): string {
  const p = envelope.payload as Record<string, unknown>;
  if (isPayloadRef(envelope.payload)) return `${envelope.intent}: ${envelope.payload.$ref}`;
  const text = p['task'] ?? p['reason'] ?? p['message'] ?? p['summary'] ?? p['artifact'] ?? p['question'];
  const missing = Array.isArray(p['missing_fields']) ? ` missing ${p['missing_fields'].join(', ')} —` : '';
  const previous = p['previous_report'] === undefined ? '' : ' (+ previous_report)';
  const context = p['context'] as { session_tools?: readonly string[] } | undefined;
  const tools = context?.session_tools;
  const allowed = tools === undefined ? '' : ` [session tools: ${tools.join(', ') || 'none'}]`;
  return `${envelope.intent}:${missing} ${String(text)}${previous}${allowed}`;
}
