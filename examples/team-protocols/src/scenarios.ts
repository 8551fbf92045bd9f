// The scripted run: five scenarios on one team, on simulated time. The script plays the lead (a
// person would type the same operations in `--interactive`); the teammates follow their own scripts.
import { isParleyError } from '@parley/core';
import type { ShutdownRequested } from '@parley/protocol-tools';
import type { Team } from './team.js';

export const PLAN_FEEDBACK =
  'Too risky: dropping legacy_tokens logs everyone out and there is no way back. Stage it behind a flag and add a rollback.';
export const PLAN_APPROVAL = 'Go: start with stage 1; keep auth_v2 off in prod until I say so.';

export interface Scenario {
  readonly name: string;
  readonly title: string;
  run(team: Team): Promise<void>;
}

export const SCENARIOS = [
  {
    name: 'shutdown-approved',
    title: 'the lead asks alice to shut down; she finishes up, approves and exits',
    async run(team) {
      const sent = await shutdown(team, 'alice', 'the export endpoint is merged; please shut down');
      await team.advance(5_000);
      const reply = await sent.reply;
      team.log(`awaited ${sent.requestId}: approved=${reply.approved}, from ${reply.from}`);
    },
  },
  {
    name: 'shutdown-refused',
    title: 'carol refuses: she is mid-migration and config.json is half written',
    async run(team) {
      const sent = await shutdown(team, 'carol', 'we are wrapping up for today');
      await team.advance(5_000);
      const reply = await sent.reply;
      team.log(`awaited ${sent.requestId}: approved=${reply.approved}; carol keeps working`);
    },
  },
  {
    name: 'never-answers',
    title: 'dave never answers; the request expires on the clock after 30 s',
    async run(team) {
      const sent = await shutdown(team, 'dave', 'the nightly suite can wait; please shut down');
      // Another part of the host only knows the id: it waits for the outcome by request_id.
      const outcome = team.lead.waitFor(sent.requestId).then(
        (reply) => `${reply.state}`,
        (error: unknown) => (isParleyError(error) ? error.code : String(error)),
      );
      await team.advance(15_000);
      team.log(`${sent.requestId} is still ${team.lead.get(sent.requestId)?.state} after 15 s`);
      await team.advance(20_000);
      team.log(`waitFor(${sent.requestId}) → ${await outcome}`);
    },
  },
  {
    name: 'plan-review',
    title: 'bob submits a risky plan; the lead rejects it with feedback; bob revises; the lead approves',
    async run(team) {
      team.startWork('bob');
      await team.advance(5_000);
      const first = pendingPlanFrom(team, 'bob');
      reviewed(team, first, false, PLAN_FEEDBACK);
      await team.advance(5_000);
      const second = pendingPlanFrom(team, 'bob');
      reviewed(team, second, true, PLAN_APPROVAL);
      await team.advance(5_000);
    },
  },
  {
    name: 'late-and-wrong-replies',
    title: "carol answers erin's request (wrong teammate); erin's own reply arrives after expiry (late)",
    async run(team) {
      const sent = await shutdown(team, 'erin', 'the docs are done; please shut down');
      await team.advance(10_000);
      team.log(`carol copies ${sent.requestId} from the team channel and answers for erin`);
      team.forge('carol', sent.requestId, { approve: true, reason: 'erin said she is done' });
      await team.deliver();
      await team.advance(25_000);
      await team.advance(15_000);
      const exited = team.teammate('erin')?.exited === true;
      team.log(
        `erin ${exited ? 'approved and exited' : 'is still running'}, but ${sent.requestId} stays ${team.lead.get(sent.requestId)?.state}: the lead follows up by hand`,
      );
    },
  },
] as const satisfies readonly Scenario[];

export type ScenarioName = (typeof SCENARIOS)[number]['name'];

async function shutdown(team: Team, name: string, reason: string): Promise<ShutdownRequested> {
  const sent = await team.requestShutdown(name, reason);
  if (!sent.ok) throw new Error(`the script could not ask ${name} to shut down: ${sent.code}`);
  return sent;
}

function pendingPlanFrom(team: Team, name: string): string {
  const plan = team.roster.pending(name).find((r) => r.protocol === 'plan_approval');
  if (plan === undefined) throw new Error(`the script expected a pending plan from ${name}`);
  return plan.id;
}

function reviewed(team: Team, requestId: string, approve: boolean, feedback: string): void {
  const result = team.review(requestId, approve, feedback);
  if (!result.ok) throw new Error(`the script could not review ${requestId}: ${result.code}`);
}
