// A party driven by a model through createProtocolAgent: real correlators on an in-memory wire
// (test/helpers.ts), a manual clock, a real tool gate, and a model written as a plain function.
import { isParleyError } from '@parley/core';
import { type Correlator, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { createToolGate } from '@parley/tools';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProtocolAgent,
  defineProtocolTools,
  type ProtocolAgent,
  type ProtocolAgentEvents,
  type ProtocolAgentModel,
  type ProtocolAgentPrompt,
} from '../src/index.js';
import { createTeam, type Team } from './helpers.js';

type Start = { readonly type: 'start' };
const shutdown = defineProtocolTools(shutdownProtocol);
const plan = defineProtocolTools(planApprovalProtocol, {
  requestName: 'plan_submit',
  respondName: 'plan_review',
});

let team: Team;
let agent: ProtocolAgent<Start> | undefined;
afterEach(() => {
  agent?.close();
  agent = undefined;
  team.close();
  expect(team.clock.pendingTimers()).toBe(0);
});

function setup(
  model: ProtocolAgentModel<Start>,
  options: { delayMs?: number; maxRetries?: number; peers?: () => readonly string[] } = {},
): {
  lead: Correlator;
  bob: Correlator;
  agent: ProtocolAgent<Start>;
  turns: ProtocolAgentEvents<Start>['turn'][];
} {
  team = createTeam();
  const lead = team.add('lead');
  const bob = team.add('bob');
  agent = createProtocolAgent<Start>({
    correlator: bob,
    gate: createToolGate({
      tools: [shutdown.respond, plan.request],
      allowlist: ['shutdown_response', 'plan_submit'],
    }),
    tools: [shutdown, plan],
    model,
    peers: ['lead'],
    clock: team.clock,
    ...options,
  });
  const turns: ProtocolAgentEvents<Start>['turn'][] = [];
  agent.on('turn', (turn) => turns.push(turn));
  return { lead, bob, agent, turns };
}

/** Lets the clock run the agent's timers and the wire deliver, until quiet. */
async function settle(ms = 0): Promise<void> {
  await team.flush();
  team.clock.advance(ms);
  await agent?.idle();
  await team.flush();
}

describe('createProtocolAgent', () => {
  it('tells the model of a request as a notice after delayMs, and its answer settles it', async () => {
    const prompts: ProtocolAgentPrompt<Start>[] = [];
    const { lead, turns } = setup(
      async (prompt) => {
        prompts.push(prompt);
        return 'answer_with' in prompt
          ? {
              tool_calls: [
                {
                  id: 'c1',
                  tool: prompt.answer_with,
                  args: { request_id: prompt.request_id, approve: false, reason: 'busy' },
                },
              ],
            }
          : { tool_calls: [] };
      },
      { delayMs: 2_000 },
    );
    const reply = lead.request(shutdownProtocol, { to: 'bob', payload: {} });
    await settle(1_999);
    expect(prompts).toEqual([]);
    await settle(1);
    await expect(reply).resolves.toMatchObject({ state: 'rejected', reason: 'busy' });
    expect(prompts[0]).toMatchObject({
      type: 'protocol_request',
      request_id: reply.id,
      answer_with: 'shutdown_response',
    });
    expect(turns.map((t) => t.result.executed.map((c) => c.tool))).toEqual([['shutdown_response']]);
  });

  it('starts on a host prompt, and hears the outcome of its own request', async () => {
    const prompts: string[] = [];
    const { lead, agent: a } = setup(async (prompt) => {
      prompts.push('type' in prompt ? prompt.type : '?');
      return prompt.type === 'start'
        ? {
            tool_calls: [
              { id: 'p1', tool: 'plan_submit', args: { to: 'lead', payload: { plan: 'Refactor auth' } } },
            ],
          }
        : { tool_calls: [] };
    });
    a.prompt({ type: 'start' });
    await settle();
    expect(a.turns).toBe(1);
    const [request] = lead.list({ protocol: 'plan_approval' });
    lead.respond(request?.id ?? '', { approve: true });
    await settle();
    expect(prompts).toEqual(['start', 'protocol_outcome']);
  });

  it('asks again with tool_feedback when a call is refused, maxRetries times', async () => {
    const prompts: ProtocolAgentPrompt<Start>[] = [];
    const { lead, turns } = setup(
      async (prompt) => {
        prompts.push(prompt);
        return {
          tool_calls: [
            {
              id: `c${prompts.length}`,
              tool: 'shutdown_response',
              args: { request_id: 'req_404', approve: true },
            },
          ],
        };
      },
      { maxRetries: 2 },
    );
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await settle();
    expect(prompts).toHaveLength(3);
    expect(prompts[2]).toMatchObject({
      tool_feedback: { failed_calls: [{ id: 'c2', tool_reason: 'unknown_request' }] },
    });
    expect(turns.map((t) => t.result.feedback.failed_calls.length)).toEqual([1, 1, 1]);
  });

  it('ignores requests of protocols it cannot answer', async () => {
    const prompts: unknown[] = [];
    const { lead } = setup(async (prompt) => {
      prompts.push(prompt);
      return { tool_calls: [] };
    });
    const asked = lead.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } });
    asked.catch(() => {});
    await settle();
    expect(prompts).toEqual([]);
  });

  it('reports a failing model as an error event, and nothing runs', async () => {
    const errors: unknown[] = [];
    const {
      lead,
      agent: a,
      turns,
    } = setup(async () => {
      throw new Error('model down');
    });
    a.on('error', ({ error }) => errors.push((error as Error).message));
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await settle();
    expect(errors).toEqual(['model down']);
    expect(turns).toEqual([]);
  });

  it('on close: aborts the model in flight, clears waiting turns, and hears nothing more', async () => {
    let signal: AbortSignal | undefined;
    const errors: unknown[] = [];
    const {
      lead,
      agent: a,
      turns,
    } = setup(
      (_prompt, context) =>
        new Promise((_resolve, reject) => {
          signal = context.signal;
          context.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      { delayMs: 1_000 },
    );
    a.on('error', ({ error }) => errors.push(error));
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await team.flush();
    team.clock.advance(1_000); // the model is asked, and thinks until aborted
    a.prompt({ type: 'start' }); // waits for its delay
    a.close();
    a.close();
    await a.idle();
    expect(signal?.aborted).toBe(true);
    expect(errors).toEqual([]);
    a.prompt({ type: 'start' });
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await settle(1_000);
    expect(turns).toEqual([]);
  });

  it('stops when closed while the gate ran the calls', async () => {
    const {
      lead,
      agent: a,
      turns,
    } = setup(async () => ({
      tool_calls: [{ id: 'c1', tool: 'shutdown_response', args: { request_id: 'req_404', approve: true } }],
    }));
    a.on('turn', () => a.close());
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await settle();
    expect(turns).toHaveLength(1);
  });

  it('stops when closed while the model was answering', async () => {
    let close = (): void => {};
    const { lead, turns } = setup(async () => {
      close();
      return { tool_calls: [] };
    });
    close = () => agent?.close();
    lead.request(shutdownProtocol, { to: 'bob', payload: {} }).catch(() => {});
    await settle();
    expect(turns).toEqual([]);
  });

  it('refuses bad options', () => {
    team = createTeam();
    const bob = team.add('bob');
    const base = {
      correlator: bob,
      gate: createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] }),
      tools: [shutdown],
      model: async () => ({ tool_calls: [] }),
    };
    for (const [options, code] of [
      [{ maxRetries: 6 }, 'invalid_argument'],
      [{ maxRetries: 0.5 }, 'invalid_argument'],
      [{ delayMs: -1 }, 'invalid_timeout'],
      [{ delayMs: Number.NaN }, 'invalid_timeout'],
    ] as const) {
      let error: unknown;
      try {
        createProtocolAgent({ ...base, ...options });
      } catch (e) {
        error = e;
      }
      expect(isParleyError(error, code)).toBe(true);
    }
    const ok = createProtocolAgent(base); // the system clock, no peers, defaults
    expect(ok.turns).toBe(0);
    ok.close();
  });
});

describe('createProtocolAgent: peers read at each turn', () => {
  it('takes a function of the peers, so a request to one who joined later goes out', async () => {
    const team: string[] = [];
    const submit =
      (id: string): ProtocolAgentModel<Start> =>
      async () => ({
        tool_calls: [
          { id, tool: 'plan_submit', args: { to: 'lead', payload: { plan: 'Ship it in stages' } } },
        ],
      });
    const { agent: bobAgent, turns } = setup(submit('c1'), { peers: () => team, maxRetries: 0 });
    bobAgent.prompt({ type: 'start' });
    await settle();
    expect(turns[0]?.result.feedback.failed_calls.map((f) => f.tool_reason)).toEqual(['unknown_peer']);
    team.push('lead');
    bobAgent.prompt({ type: 'start' });
    await settle();
    expect(turns[1]?.result.executed.map((call) => call.tool)).toEqual(['plan_submit']);
  });
});
