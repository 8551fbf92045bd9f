// What the host does with the runner's events: a transcript line for each, the strategist's
// escalations to the CEO (a blocked or exhausted review → #approvals, an aborted run → #errors),
// and the approval request the CEO posts in #approvals, answered by the chairman (scripted on
// the clock, or a person) through `runner.decide`. No decision about the pipeline is made here.
import type { ManualClock, TimerHandle } from '@parley/core';
import type { PipelineDefinition, PipelineRunner } from '@parley/pipeline';
import type { StrategyThesis } from './artifacts.js';
import type { ChairmanAnswer, ChatRoom } from './discord.js';
import { CEO, type Host, STRATEGIST } from './host.js';
import type { ChairmanScript } from './scenarios.js';
import type { Transcript } from './transcript.js';

/** The chairman's decision on one approval request. */
export interface ChairmanDecision {
  readonly approve: boolean;
  readonly reason?: string;
}

export interface NarrateOptions {
  readonly runner: PipelineRunner;
  readonly pipeline: PipelineDefinition;
  readonly host: Host;
  readonly clock: ManualClock;
  readonly transcript: Transcript;
  /** The scripted chairman, or a person answering (`--interactive`). */
  readonly chairman: ChairmanScript | ((plan: string) => Promise<ChairmanDecision>);
  /** Keeps a person's pending answer (and chat I/O in flight), so the clock waits for it. */
  readonly external: Set<Promise<unknown>>;
  /** The chat the notices and the approval go to (`--platform discord`); none by default. */
  readonly room?: ChatRoom;
  /** How the scripted chairman answers in that chat; a click by default. */
  readonly answerBy?: ChairmanAnswer;
}

/** Subscribes to the runner; returns what to call when the run is over (clears the chairman's timer). */
export function narrate(options: NarrateOptions): () => void {
  const { runner, pipeline, host, clock, transcript, chairman } = options;
  const log = transcript.log;
  const timers = new Set<TimerHandle>();
  let rounds = 0;
  const { room } = options;
  /** Chat I/O the clock waits for: simulated time stands still until it is done. */
  const track = (work: Promise<unknown>): void => {
    options.external.add(work);
    void work.finally(() => options.external.delete(work)).catch(() => {});
  };
  const escalate = (reason: string, channel: '#approvals' | '#errors'): void => {
    host.post(host.envelope('escalate', { from: STRATEGIST, to: CEO, payload: { reason }, depth: 1 }));
    const message = channel === '#approvals' ? `@董事長 ${reason}` : reason;
    const posted = host.post(
      host.envelope('notify', { from: CEO, to: channel, payload: { message, channel } }),
    );
    if (room !== undefined && posted.ok) track(room.notify(channel, message));
  };
  const offs = [
    runner.on('node', (e) => {
      const node = pipeline.nodes.find((n) => n.id === e.node);
      const c = node?.condition;
      if ((e.status === 'running' || e.status === 'waiting') && e.attempt === 1 && c !== undefined)
        log(`  ? [${e.node}] condition ${c.node}.${c.field} ${c.op} "${c.value}": true`);
      if (e.status === 'skipped') log(`  ⤼ [${e.node}] skipped: ${e.reason}`);
      if (e.status === 'escalated' && node?.kind === 'review') {
        const max = node.maxRevisions ?? 3;
        const why = e.code === 'revise_limit' ? `still "revise" after ${max} rounds` : e.code;
        log(`  ⛔ [${e.node}] review gate: ${e.code}`);
        const reviewed = pipeline.nodes.find((n) => n.id === node.reviews);
        escalate(`review of ${reviewed?.kind === 'approval' ? '' : reviewed?.output}: ${why}`, '#approvals');
      }
      if (e.status === 'failed' && e.code !== 'expired')
        escalate(`pipeline halted at ${e.node}: ${e.code} (${e.reason})`, '#errors');
      if (node?.kind === 'approval' && ['done', 'rejected', 'failed'].includes(e.status))
        log(
          `${CEO}: approval ${e.status === 'done' ? 'approved' : e.status}${e.reason ? ` — ${e.reason}` : ''}`,
        );
    }),
    runner.on('failure', (e) => {
      const spawn = `${e.node}-${e.attempt}`;
      const next = e.next === 'retry' ? 'spawn again' : e.next;
      const minutes = (pipeline.nodes.find((n) => n.id === e.node)?.timeoutMs ?? 0) / 60_000;
      if (e.kind === 'timeout')
        log(`  ⏱ ${spawn} did not announce within ${minutes} min → ${next} with a timeout notice`);
      else if (e.kind === 'invalid_output')
        log(`  ✗ ${spawn}: missing ${e.missingFields?.join(', ') ?? e.message} → ${next} with the fields`);
      else log(`  ⚠ ${spawn} failed: ${e.message} → ${e.next === 'retry' ? 'retry once' : e.next}`);
    }),
    runner.on('revise', (e) => {
      rounds = e.round;
      const fields = e.issues.map((i) => i.field ?? i.description).join(', ');
      log(`  ↺ [${e.node}] revise round ${e.round}/${e.max} → ${e.target ?? 'the reviewed step'}: ${fields}`);
    }),
    runner.on('ignored', (e) => log(`  ⛔ [${e.node}] ${e.code}: the result came after its attempt ended`)),
    runner.on('approval', (e) => void ask(e.runId, e.node, e.channel ?? '#approvals')),
  ];

  async function ask(runId: string, node: string, channel: string): Promise<void> {
    const outputs = await runner.snapshot(pipeline, runId);
    const t = outputs?.['converge']?.output as unknown as StrategyThesis;
    const plan = `${t.direction} ${t.market} ${t.entry_zone.join('–')}, stop ${t.stop_loss}, TP ${t.take_profit.join('/')}, size ${t.position_size_pct}%`;
    const summary = `pipeline complete (${rounds} revise round(s)); approval needed`;
    host.post(host.envelope('deliver_report', { from: STRATEGIST, to: CEO, payload: { summary }, depth: 1 }));
    const message = `@董事長 approve strategy (${runId}/${node}): ${plan}`;
    host.post(host.envelope('notify', { from: CEO, to: channel, payload: { message, channel } }));
    const answer = (d: ChairmanDecision): Promise<unknown> => {
      log(`chairman in ${channel}: ${d.approve ? 'approve' : 'reject'}${d.reason ? ` — "${d.reason}"` : ''}`);
      return runner.decide(pipeline, runId, node, { approved: d.approve, reason: d.reason, by: 'chairman' });
    };
    if (typeof chairman === 'function') {
      const person = chairman(plan).then(answer);
      options.external.add(person);
      void person.finally(() => options.external.delete(person));
      return;
    }
    // In Discord the question is a confirm card in #approvals; the chairman clicks (or types) there.
    const question = room?.approve(message, { approve: chairman.approve, by: options.answerBy ?? 'click' });
    if (question !== undefined) track(question.posted);
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      if (question === undefined) void answer(chairman);
      else track(question.answer().then(answer));
    }, chairman.afterMs);
    timers.add(timer);
  }

  return () => {
    for (const off of offs) off();
    for (const timer of timers) clock.clearTimeout(timer);
  };
}
