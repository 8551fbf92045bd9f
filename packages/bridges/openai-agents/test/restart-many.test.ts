import { describe, expect, it } from 'vitest';
import type { AgentsRunOutcome } from '../src/index.js';
import { call, ScriptedModel, say, sharedWorld, startProcess } from './helpers.js';

const where = { sessionKey: 'tg:g1', requester: 'alice' };
const two = [call('c1', 'drop_table', { table: 'orders' }), call('c2', 'drop_table', { table: 'users' })];

/** Two approvals in one step; the process dies after `answered` answers. */
async function twoApprovalsThenCrash(answered: number) {
  const world = sharedWorld();
  const before = await startProcess(world, new ScriptedModel([two]), {}, 'cfm_a');
  let prompted = before.nextPrompt();
  void before.bridge.run({ runId: 'r1', input: 'Drop both', context: { readOnly: false }, ...where });
  await prompted;
  for (let i = 0; i < answered; i++) {
    prompted = before.nextPrompt();
    await before.channel.say('g1', 'alice', '确认');
    await prompted;
  }
  await before.bridge.close();
  const outcomes: AgentsRunOutcome<{ readOnly: boolean }>[] = [];
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const after = await startProcess(
    world,
    new ScriptedModel([[say('Both dropped.')]]),
    {
      onResumed: ({ outcome }) => {
        outcomes.push(outcome);
        done();
      },
    },
    'cfm_b',
  );
  return { world, before, after, outcomes, finished };
}

describe('a restart with several interruptions of one step', () => {
  it('asks the second approval after the restart, then resumes the run once', async () => {
    const { world, after, outcomes, finished } = await twoApprovalsThenCrash(0);
    const second = after.nextPrompt();
    await after.channel.say('g1', 'alice', '确认'); // the first approval, asked before the restart
    await second; // the second had not been asked yet: it is asked now
    expect(after.channel.lastSent('g1')?.text).toContain('users');
    expect(world.dropped).toEqual([]);
    await after.channel.say('g1', 'alice', '确认');
    await finished;
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.status === 'completed' && outcomes[0].result.finalOutput).toBe('Both dropped.');
    expect([...world.dropped].sort()).toEqual(['orders', 'users']);
    await after.bridge.close();
  });

  it('takes an answer given before the restart from the audit trail, asking only the other one', async () => {
    const { world, before, after, outcomes, finished } = await twoApprovalsThenCrash(1);
    const asked = before.channel.sent.length;
    expect(asked).toBe(2);
    await after.channel.say('g1', 'alice', '确认'); // the second approval, asked before the restart
    await finished;
    expect(after.channel.sent).toEqual([]); // nothing asked again
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['completed']);
    expect([...world.dropped].sort()).toEqual(['orders', 'users']);
    await after.bridge.close();
  });
});
