import { afterEach, describe, expect, it } from 'vitest';
import { createLeadConsole, HELP, type LeadConsole } from '../src/console.js';
import { type Setup, setup, traffic } from './helpers.js';

let current: Setup | undefined;
afterEach(() => {
  current?.team.close();
  current?.clock.assertNoPendingTimers();
  current = undefined;
});

function open(): { lead: LeadConsole } & Setup {
  current = setup();
  return { ...current, lead: createLeadConsole(current.team) };
}

describe('the lead console (--interactive)', () => {
  it('asks for a shutdown and lets time pass until the answer is in', async () => {
    const { lead, team, transcript } = open();
    expect(lead.prompt()).toBe('lead 09:00:00> ');
    expect(await lead.handle('shutdown alice')).toEqual([]);
    expect(lead.prompt()).toBe('lead 09:00:05> ');
    expect(team.lead.get('req_1')?.state).toBe('approved');
    expect(transcript.lines).toContain(
      '09:00:00  lead → alice   shutdown request req_1 {"reason":"the work is done; please shut down gracefully"}',
    );
  });

  it('passes a typed reason on', async () => {
    const { lead, team } = open();
    await lead.handle('shutdown carol  time to go home');
    expect(team.lead.get('req_1')?.payload).toEqual({ reason: 'time to go home' });
  });

  it('shows the /team view and the trackers', async () => {
    const { lead, team } = open();
    await lead.handle('shutdown dave');
    const [view] = (await lead.handle('/team')) ?? [];
    expect(view).toBe(team.view());
    expect(view).toContain('  dave   tester      shutdown pending  shutdown req_1 pending');
    const [json] = (await lead.handle('trackers')) ?? [];
    expect(JSON.parse(json ?? '')).toEqual({
      shutdown_requests: { req_1: { target: 'dave', status: 'pending' } },
      plan_requests: {},
    });
  });

  it('rejects a plan with feedback, then approves the revision by request_id', async () => {
    const { lead, team } = open();
    team.startWork('bob');
    await team.advance(5_000);
    expect(await lead.handle('reject req_1 add a rollback step')).toEqual([]);
    expect(await lead.handle('approve req_2')).toEqual([]);
    expect(
      Object.values(team.lead.list({ protocol: 'plan_approval' })).map((r) => [r.id, r.state, r.reason]),
    ).toEqual([
      ['req_1', 'rejected', 'add a rollback step'],
      ['req_2', 'approved', undefined],
    ]);
  });

  it('lets simulated time pass with wait, so a silent teammate expires', async () => {
    const { lead, team } = open();
    await lead.handle('shutdown dave');
    await lead.handle('wait 25');
    expect(team.lead.get('req_1')?.state).toBe('expired');
    expect(lead.prompt()).toBe('lead 09:00:30> ');
  });

  it('forges a reply from the wrong teammate, which the lead refuses', async () => {
    const { lead, team } = open();
    await lead.handle('shutdown dave');
    expect(await lead.handle('forge carol req_1')).toEqual([]);
    expect(team.ignored.map((r) => [r.code, r.from])).toEqual([['wrong_sender', 'carol']]);
    expect(await lead.handle('forge mallory req_1')).toEqual([
      'refused (unknown_teammate): No teammate "mallory"',
    ]);
  });

  it('withdraws a pending shutdown request; the handler keeps the teammate working', async () => {
    const { lead, team, transcript } = open();
    await lead.handle('shutdown dave');
    expect(await lead.handle('cancel req_1')).toEqual([]);
    expect(team.lead.get('req_1')).toMatchObject({ state: 'cancelled', reason: 'withdrawn by the lead' });
    expect(team.members.find((m) => m.name === 'dave')).toMatchObject({
      status: 'working',
      note: 'req_1 cancelled',
    });
    expect(transcript.lines.at(-1)).toBe(
      '09:00:05  lead           handler: dave keeps working (req_1 cancelled)',
    );
    expect(await lead.handle('cancel req_1')).toEqual([
      'nothing to cancel: req_1 is not a pending request of the lead',
    ]);
    expect(await lead.handle('cancel')).toEqual(['usage: cancel <request_id>']);
  });

  it('prints refusals with their code', async () => {
    const { lead } = open();
    expect(await lead.handle('shutdown mallory')).toEqual([
      'refused (unknown_teammate): No teammate "mallory"',
    ]);
    expect(await lead.handle('approve req_9')).toEqual([
      'refused (unknown_request): No incoming request "req_9"',
    ]);
  });

  it('explains usage instead of guessing', async () => {
    const { lead, team } = open();
    expect(await lead.handle('shutdown')).toEqual(['usage: shutdown <name> [reason…]']);
    expect(await lead.handle('reject req_1')).toEqual(['usage: reject <request_id> …']);
    expect(await lead.handle('wait soon')).toEqual(['usage: wait <seconds>']);
    expect(await lead.handle('forge carol')).toEqual(['usage: forge <teammate> <request_id>']);
    expect(await lead.handle('dance')).toEqual(['unknown command "dance"; type /help']);
    expect(await lead.handle('   ')).toEqual([]);
    expect(await lead.handle('/help')).toEqual([HELP]);
    expect(traffic(team)).toEqual([]);
    expect(lead.prompt()).toBe('lead 09:00:00> ');
  });

  it('ends on /quit', async () => {
    const { lead } = open();
    expect(await lead.handle('/quit')).toBeUndefined();
  });
});

describe('the lead console refusals', () => {
  it('lets no time pass when a command is refused', async () => {
    const { lead, transcript } = open();
    await lead.handle('shutdown mallory');
    await lead.handle('approve req_1');
    expect(lead.prompt()).toBe('lead 09:00:00> ');
    expect(transcript.lines).toEqual([]);
  });
});
