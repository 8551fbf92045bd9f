// What each kind of step does: spawn a researcher, converge (the strategist's own work), review
// through @parley/conflict's review gate (pass / revise ≤ max rounds / block → escalate), and the
// human approval the CEO asks of the chairman through @parley/correlate.
import { createReviewGate } from '@parley/conflict';
import { isParleyError, validate } from '@parley/core';
import type { Correlator } from '@parley/correlate';
import { type ArtifactName, type ReviewReport, StrategyThesis } from './artifacts.js';
import {
  type AgentPipelineStep,
  type HitlPipelineStep,
  isHitlStep,
  type Pipeline,
  type PipelineStep,
} from './pipeline.js';
import { planApprovalProtocol } from './protocols.js';
import type { Scenario } from './scenarios.js';
import type { StepResult } from './scheduler.js';
import type { Spawner } from './spawner.js';
import { CEO, CHAIRMAN, type Host, STRATEGIST } from './wiring.js';

const TASKS: Readonly<Record<string, string>> = {
  intel: 'Research macro, events and sentiment for BTC/USDT',
  structure: 'Map the H4/H1 structure, key levels and liquidity',
  bull: 'Argue the bullish case with levels, evidence and invalidation',
  bear: 'Argue the bearish case with levels, evidence and invalidation',
  data_analysis: 'Backtest the thesis and analyse the results',
};

/** What the steps found out, for the run's final state. */
export interface StepState {
  reviewRounds: number;
  thesisVersions: number;
  escalation?: { readonly to: string; readonly reason: string; readonly channel: string };
  approval?: { readonly requestId: string; readonly state: string; readonly reason?: string | undefined };
}

export interface StepContext {
  readonly host: Host;
  readonly pipeline: Pipeline;
  readonly scenario: Scenario;
  readonly spawner: Spawner;
  /** The CEO's correlator, which asks the chairman. */
  readonly ceo: Correlator;
  readonly approvalTimeoutMs: number;
  readonly state: StepState;
}

export function createStepExecutor(context: StepContext): (step: PipelineStep) => Promise<StepResult> {
  const { host, pipeline, scenario, spawner, state } = context;
  const codec = host.codec('Pipeline_Summary.json');
  const outputOf = (id: string): ArtifactName | undefined => {
    const step = pipeline.nodes.find((s) => s.id === id);
    return step === undefined || isHitlStep(step) ? undefined : (step.output as ArtifactName);
  };

  function escalate(to: string, reason: string, details: Record<string, unknown>, channel: string): void {
    host.post(
      codec.create('escalate', {
        from: STRATEGIST,
        to,
        ref_task: host.refTask,
        payload: { reason, severity: 'critical', details },
        spawn_depth: 1,
      }),
    );
    host.post(
      codec.create('notify', {
        from: CEO,
        to: channel,
        ref_task: host.refTask,
        payload: { message: channel === '#approvals' ? `@董事長 ${reason}` : reason, channel },
      }),
    );
    state.escalation = { to, reason, channel };
  }

  /** The strategist's own model call: the next scripted thesis, checked against its schema. */
  function converge(): StrategyThesis {
    const index = Math.min(state.thesisVersions, scenario.theses.length - 1);
    const checked = validate(StrategyThesis, scenario.theses[index]);
    if (!checked.ok) throw new Error(`Thesis v${index + 1} is invalid: ${checked.issues[0]?.message}`);
    state.thesisVersions++;
    const thesis = checked.value;
    host.putArtifact(STRATEGIST, 'Strategy_Thesis.json', thesis);
    host.transcript.log(
      `${STRATEGIST} (self) converges → Strategy_Thesis.json v${state.thesisVersions}: ${thesis.direction}, stop ${thesis.stop_loss}, R:R ${thesis.risk_reward}, size ${thesis.position_size_pct}%`,
    );
    return thesis;
  }

  async function spawnStep(
    step: AgentPipelineStep,
    extra: Record<string, unknown> = {},
  ): Promise<StepResult> {
    const inputs = step.dependsOn.flatMap((dep) => {
      const output = outputOf(dep);
      return output === undefined ? [] : [{ $ref: output }];
    });
    const outcome = await spawner.run({
      step: step.id,
      role: step.agent,
      output: step.output,
      intent: 'assign_task',
      payload: {
        task: TASKS[step.id] ?? `Produce ${step.output}`,
        output: step.output,
        context: { inputs, ...extra },
      },
    });
    if (outcome.ok) return { status: 'done', output: outcome.report as Record<string, unknown> };
    escalate(
      CEO,
      `pipeline halted at ${step.id}: ${outcome.code} (${outcome.message})`,
      { step: step.id },
      '#errors',
    );
    return { status: 'failed', reason: outcome.code };
  }

  async function reviewStep(
    step: AgentPipelineStep,
    onRevise: { step: string; max: number },
  ): Promise<StepResult> {
    const researchers = pipeline.nodes.filter(
      (s): s is AgentPipelineStep => !isHitlStep(s) && s.action !== 'self' && s.id !== step.id,
    );
    let last: ReviewReport | undefined;
    const gate = createReviewGate<StrategyThesis>({
      maxRevisions: onRevise.max,
      targets: [STRATEGIST, ...researchers.map((s) => s.agent)],
      clock: host.clock,
      review: async () => {
        const outcome = await spawner.run({
          step: step.id,
          role: step.agent,
          output: step.output,
          intent: 'review_request',
          payload: {
            artifact: 'Strategy_Thesis.json',
            content: { $ref: 'Strategy_Thesis.json' },
            criteria: ['schema completeness', 'risk logic'],
          },
        });
        if (!outcome.ok) throw new Error(outcome.message); // the gate retries a failed reviewer once
        last = outcome.report as ReviewReport; // validated against Review_Report by the codec
        return last;
      },
    });
    gate.on('attempt', ({ record }) => {
      if (record.status !== 'revise') return;
      const fields = record.verdict?.issues?.map((i) => i.field).join(', ');
      if (state.reviewRounds >= onRevise.max) {
        host.transcript.log(`  ↺ revise again (${fields}): past the limit of ${onRevise.max} rounds`);
        return;
      }
      state.reviewRounds++;
      const target = record.verdict?.revise_target ?? STRATEGIST;
      host.transcript.log(`  ↺ revise round ${state.reviewRounds}/${onRevise.max} → ${target}: ${fields}`);
    });
    const current = host.getArtifact(STRATEGIST, 'Strategy_Thesis.json') as StrategyThesis; // converge put it there
    const outcome = await gate.run({
      input: current,
      generate: async (request) => {
        if (request.feedback.length === 0) return current;
        const target = request.target ?? STRATEGIST;
        const researcher = researchers.find((s) => s.agent === target);
        if (researcher !== undefined) {
          const issues = request.feedback.at(-1)?.review?.issues ?? [];
          const redo = await spawnStep(researcher, { issues, previous_report: { $ref: researcher.output } });
          if (redo.status !== 'done') throw new Error(`${researcher.agent} could not revise`);
        }
        return converge();
      },
    });
    if (outcome.ok) return { status: 'done', output: last };
    const to = (step.kind === 'review' ? step.escalateTo : undefined) ?? CEO;
    const why =
      outcome.code === 'revise_limit' ? `still "revise" after ${onRevise.max} rounds` : outcome.code;
    host.transcript.log(`  ⛔ review gate: ${outcome.code} — ${outcome.report.summary}`);
    escalate(to, `review of Strategy_Thesis.json: ${why}`, { report: outcome.report }, '#approvals');
    return { status: 'escalated', reason: outcome.code, output: { verdict: outcome.report.review?.verdict } };
  }

  async function approvalStep(step: HitlPipelineStep): Promise<StepResult> {
    const thesis = host.getArtifact(STRATEGIST, 'Strategy_Thesis.json') as StrategyThesis;
    host.post(
      codec.create('deliver_report', {
        from: STRATEGIST,
        to: CEO,
        ref_task: host.refTask,
        spawn_depth: 1,
        payload: {
          pipeline: pipeline.name,
          ref_task: host.refTask,
          thesis: { $ref: 'Strategy_Thesis.json' },
          analysis: { $ref: 'Data_Analysis_Report.json' },
          review_rounds: state.reviewRounds,
          summary: `pipeline complete (${state.reviewRounds} revise round(s)); approval needed`,
        },
      }),
    );
    host.topology.finish(STRATEGIST);
    const plan = `${thesis.direction} ${thesis.market} ${thesis.entry_zone.join('–')}, stop ${thesis.stop_loss}, TP ${thesis.take_profit.join('/')}, size ${thesis.position_size_pct}%`;
    const reply = context.ceo.request(planApprovalProtocol, {
      to: CHAIRMAN,
      payload: { plan },
      waitingOnHuman: true,
      timeoutMs: context.approvalTimeoutMs,
    });
    const requestId = reply.id;
    host.post(
      codec.create('notify', {
        from: CEO,
        to: step.channel ?? '#approvals',
        ref_task: host.refTask,
        request_id: requestId,
        payload: {
          message: `@董事長 approve strategy (${requestId}): ${plan}`,
          channel: step.channel ?? '#approvals',
        },
      }),
    );
    try {
      const answer = await reply;
      state.approval = { requestId, state: answer.state, reason: answer.reason };
      host.transcript.log(`${CEO}: ${requestId} ${answer.state}`);
      return { status: 'done', output: { decision: answer.state } };
    } catch (error) {
      if (!isParleyError(error, 'timeout')) throw error;
      state.approval = { requestId, state: 'expired' };
      host.transcript.log(`  ⏱ ${requestId} expired: no answer in ${step.channel}`);
      return { status: 'failed', reason: 'approval expired' };
    }
  }

  return async (step) => {
    if (isHitlStep(step)) return approvalStep(step);
    if (step.kind === 'review') {
      return reviewStep(step as AgentPipelineStep, { step: step.reviews, max: step.maxRevisions ?? 3 });
    }
    if (step.action === 'self') return { status: 'done', output: converge() };
    return spawnStep(step as AgentPipelineStep); // parsePipeline checked every output
  };
}
