// The lead as a model (team-protocols.md: the lead's model calls shutdown_request and reviews
// plans through tools). A protocol agent of @parley/protocol-tools drives the lead's correlator:
// the model acts only through the lead's tools — spawn_teammate and list_teammates (this host's),
// shutdown_request and plan_review (the protocols' side of the lead) — and a refused call comes
// back as tool_feedback. Whom it may ask is read at each turn: the teammates spawned and still on.
import type { Clock } from '@parley/core';
import {
  createProtocolAgent,
  type ProtocolAgent,
  type ProtocolAgentPrompt,
  type ProtocolAgentTurn,
} from '@parley/protocol-tools';
import { brief, createScriptedModel, type ScriptedModel } from '@parley/testing';
import { createToolGate, defineTool } from '@parley/tools';
import { z } from 'zod';
import { PLAN_APPROVAL, PLAN_FEEDBACK } from './scenarios.js';
import type { Team } from './team.js';
import { planTools, shutdownTools } from './teammate.js';

/** What the person tells the lead's model: the document's try-it prompts. */
export type LeadPrompt = ProtocolAgentPrompt<{ readonly type: 'instruction'; readonly text: string }>;
export type LeadModel = ScriptedModel<ProtocolAgentTurn, LeadPrompt>;

/** The try-it prompts of team-protocols.md, in order. */
export const TRY_IT_PROMPTS: readonly string[] = [
  'Spawn alice as a coder. Then request her shutdown.',
  "List teammates to see alice's status after shutdown approval",
  'Spawn bob with a risky refactoring task. Review and reject his plan.',
  'Spawn charlie, have him submit a plan, then approve it.',
];

export interface LeadAgent {
  readonly model: LeadModel;
  /** Tells the lead's model what to do (after its thinking time). */
  instruct(text: string): void;
  close(): void;
}

/** The lead's host tools: spawning a teammate of the cast by name, and the roster as the model sees it. */
function leadTools(team: Team) {
  const spawn = defineTool({
    name: 'spawn_teammate',
    description:
      'Spawns a teammate by name; it starts its task at once (submitting a plan first when it has one).',
    args: z.object({ name: z.string().min(1) }),
    reasons: ['unknown_teammate', 'already_spawned'],
    execute: (args, { reject }) => {
      const spawned = team.spawn(args.name);
      if (!spawned.ok) return reject(spawned.code, spawned.message);
      return { name: args.name, role: spawned.script.role, task: spawned.script.task };
    },
  });
  const list = defineTool({
    name: 'list_teammates',
    description:
      'Lists the teammates with their status (working, shutdown_pending, shut_down, unresponsive).',
    args: z.object({}),
    reasons: [],
    execute: () => team.members.map(({ name, role, status }) => ({ name, role, status })),
  });
  return [spawn, list] as const;
}

/** Drives the team's lead with `model` through the lead's tools; the team waits for its turns too. */
export function createLeadAgent(team: Team, model: LeadModel, thinkMs = 1_000): LeadAgent {
  const [spawn, list] = leadTools(team);
  const gate = createToolGate({
    tools: [spawn, list, shutdownTools.request, planTools.respond],
    allowlist: ['spawn_teammate', 'list_teammates', 'shutdown_request', 'plan_review'],
    clock: team.clock,
  });
  const agent: ProtocolAgent<{ readonly type: 'instruction'; readonly text: string }> = createProtocolAgent({
    correlator: team.lead,
    gate,
    tools: [shutdownTools, planTools],
    model,
    peers: () => team.active(), // read at each turn: a teammate spawned later can be asked
    clock: team.clock,
    delayMs: thinkMs,
  });
  team.watch(() => agent.idle());
  agent.on('turn', ({ prompt, calls, result }) => {
    const retry = prompt.tool_feedback === undefined ? '' : ' (retry with tool_feedback)';
    if (calls.length > 0)
      team.log(`model calls${retry}: ${calls.map((c) => `${c.tool}(${brief(c.args)})`).join(', ')}`);
    for (const call of result.executed) {
      if (call.tool === 'list_teammates') team.log(`list_teammates → ${brief(call.result)}`);
    }
    for (const failed of result.feedback.failed_calls) {
      team.log(
        `✗ ${failed.tool} refused: ${failed.tool_reason ?? failed.code} — ${failed.reason} → tool_feedback`,
      );
    }
  });
  return {
    model,
    instruct(text) {
      team.log(`person → lead's model: "${text}"`);
      agent.prompt({ type: 'instruction', text });
    },
    close: () => agent.close(),
  };
}

/**
 * The lead's scripted model, following the try-it prompts: it asks alice to shut down before
 * spawning her (refused unknown_peer; the retry with the feedback asks again), lists the team,
 * rejects a plan that does everything in one go and approves the others, and stays silent on
 * outcomes. A real model client plugs in the same way.
 */
export function scriptedLead(clock: Clock): LeadModel {
  let n = 0;
  const call = (tool: string, args: Record<string, unknown>) => ({ id: `lead_${++n}`, tool, args });
  return createScriptedModel<ProtocolAgentTurn, LeadPrompt>({ clock, name: "lead's model", respond });

  function respond(prompt: LeadPrompt): ProtocolAgentTurn {
    if (prompt.type === 'protocol_outcome') return { tool_calls: [] };
    if (prompt.type === 'protocol_request') {
      const plan = String((prompt.payload as { readonly plan?: unknown }).plan ?? '');
      const approve = !/in one go|straight to prod/i.test(plan);
      const reason = !approve
        ? PLAN_FEEDBACK
        : /auth/i.test(plan)
          ? PLAN_APPROVAL
          : 'Go: ship it behind the flag.';
      return { tool_calls: [call(prompt.answer_with, { request_id: prompt.request_id, approve, reason })] };
    }
    const shutdown = (to: string) =>
      call('shutdown_request', { to, payload: { reason: 'your task is done; please shut down gracefully' } });
    const spawned = /^Spawn (\w+)/.exec(prompt.text)?.[1];
    if (prompt.text.startsWith('Spawn alice')) {
      return {
        tool_calls:
          prompt.tool_feedback === undefined
            ? [shutdown('alice'), call('spawn_teammate', { name: 'alice' })]
            : [shutdown('alice')],
      };
    }
    if (prompt.text.startsWith('List teammates')) return { tool_calls: [call('list_teammates', {})] };
    return { tool_calls: spawned === undefined ? [] : [call('spawn_teammate', { name: spawned })] };
  }
}
