// The lead's side of the team protocols, through the public API: a real correlator per party on an
// in-memory wire (test/helpers.ts) and a manual clock; teammates answer by hand.
import { createMemoryStore, isParleyError } from '@parley/core';
import { type Correlator, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { afterEach, describe, expect, it } from 'vitest';
import { createTeamLead, MAX_TEAMMATES, type TeamLead, type TeamLeadEvents } from '../src/index.js';
import { createTeam, type Team } from './helpers.js';

let team: Team;
let roster: TeamLead | undefined;
afterEach(() => {
  roster?.close();
  roster = undefined;
  team.close();
  expect(team.clock.pendingTimers()).toBe(0);
});

function setup(names = ['alice', 'bob']): { lead: Correlator; roster: TeamLead; mates: Correlator[] } {
  team = createTeam();
  const lead = team.add('lead');
  const mates = names.map((n) => team.add(n));
  roster = createTeamLead({ correlator: lead, teammates: names });
  return { lead, roster, mates };
}

async function ask(r: TeamLead, name: string, reason?: string): Promise<string> {
  const sent = await r.requestShutdown(name, reason);
  if (!sent.ok) throw new Error(sent.code);
  await team.flush();
  return sent.requestId;
}

describe('createTeamLead: the shutdown handshake moves the roster', () => {
  it('approved → shut_down, with a status event, and no second request', async () => {
    const { roster: r, mates } = setup();
    const events: TeamLeadEvents['status'][] = [];
    r.on('status', (e) => events.push(e));
    const id = await ask(r, 'alice', 'work is done');
    expect(r.teammate('alice')).toMatchObject({ status: 'shutdown_pending', last: { id, state: 'pending' } });
    expect(r.pending('alice').map((x) => x.id)).toEqual([id]);
    mates[0]?.respond(id, { approve: true, reason: 'saved' });
    await team.flush();
    expect(r.teammate('alice')).toMatchObject({ status: 'shut_down', last: { state: 'approved' } });
    expect(events.map((e) => [e.teammate.name, e.teammate.status, e.request.id])).toEqual([
      ['alice', 'shut_down', id],
    ]);
    expect(await r.requestShutdown('alice')).toMatchObject({ ok: false, code: 'already_shut_down' });
    expect(r.trackers().shutdown_requests).toEqual({
      [id]: { target: 'alice', status: 'approved', reason: 'saved' },
    });
  });

  it('rejected and cancelled → working; expired → unresponsive, and it can be asked again', async () => {
    const { lead, roster: r, mates } = setup();
    const first = await ask(r, 'alice');
    mates[0]?.respond(first, { approve: false, reason: 'mid-write' });
    await team.flush();
    expect(r.teammate('alice')?.status).toBe('working');
    const second = await ask(r, 'alice');
    expect(await lead.cancel(second)).toBe(true);
    await team.flush();
    expect(r.teammate('alice')).toMatchObject({
      status: 'working',
      last: { id: second, state: 'cancelled' },
    });
    const third = await ask(r, 'bob');
    team.clock.advance(30_000);
    await team.flush();
    expect(r.teammate('bob')).toMatchObject({
      status: 'unresponsive',
      last: { id: third, state: 'expired' },
    });
    const fourth = await ask(r, 'bob');
    expect(r.teammate('bob')?.status).toBe('shutdown_pending');
    expect(r.pending().map((x) => x.id)).toEqual([fourth]);
    expect(r.trackers().shutdown_requests[third]).toEqual({ target: 'bob', status: 'expired' });
  });

  it('counts a late reply on the teammate and changes nothing else', async () => {
    const { lead, roster: r } = setup();
    const id = await ask(r, 'alice');
    team.clock.advance(30_000);
    await team.flush();
    await lead.receive({
      kind: 'response',
      request_id: id,
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
      response: { approve: true },
    });
    expect(r.teammate('alice')).toMatchObject({ status: 'unresponsive', lateReplies: 1 });
    await lead.receive({
      kind: 'response',
      request_id: id,
      protocol: 'shutdown',
      from: 'mallory',
      to: 'lead',
      response: { approve: true },
    });
    expect(r.teammates().map((t) => t.lateReplies)).toEqual([1, 0]);
  });
});

describe('createTeamLead refusals (as data, nothing sent)', () => {
  it('unknown_teammate, already_pending, invalid_payload, closed', async () => {
    const { lead, roster: r } = setup();
    expect(await r.requestShutdown('mallory')).toMatchObject({ ok: false, code: 'unknown_teammate' });
    const id = await ask(r, 'alice');
    expect(await r.requestShutdown('alice')).toEqual({
      ok: false,
      code: 'already_pending',
      message: `Shutdown request ${id} to alice is still pending`,
    });
    expect(await r.requestShutdown('bob', 'x'.repeat(5_000))).toMatchObject({
      ok: false,
      code: 'invalid_payload',
    });
    expect(r.teammate('bob')).toEqual({ name: 'bob', status: 'working', lateReplies: 0 });
    lead.close();
    expect(await r.requestShutdown('bob')).toMatchObject({ ok: false, code: 'closed' });
    expect(team.wire.length).toBe(0);
  });

  it('send_failed when the transport throws; the teammate keeps working', async () => {
    team = createTeam();
    const lead = team.add('lead', {
      send: () => {
        throw new Error('link down');
      },
    });
    roster = createTeamLead({ correlator: lead, teammates: ['alice'] });
    expect(await roster.requestShutdown('alice')).toMatchObject({ ok: false, code: 'send_failed' });
    expect(roster.teammate('alice')?.status).toBe('working');
  });

  it('rethrows what is not a correlator error (a host bug)', async () => {
    team = createTeam();
    const lead = team.add('lead');
    const broken: Correlator = {
      ...lead,
      respond: () => {
        throw new TypeError('boom');
      },
    };
    roster = createTeamLead({ correlator: broken, teammates: ['alice'] });
    expect(() => roster?.review('req_1', true)).toThrow('boom');
  });

  it('refuses bad teammate lists with CoreError invalid_argument', () => {
    team = createTeam();
    const lead = team.add('lead');
    for (const teammates of [
      [''],
      ['alice', 'alice'],
      ['lead'],
      Array.from({ length: MAX_TEAMMATES + 1 }, (_, i) => `t${i}`),
    ]) {
      let error: unknown;
      try {
        createTeamLead({ correlator: lead, teammates });
      } catch (e) {
        error = e;
      }
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
  });
});

describe('createTeamLead: plans', () => {
  it('emits plan, reviews by request_id with feedback, and tracks it', async () => {
    const { roster: r, mates } = setup();
    const plans: string[] = [];
    r.on('plan', ({ request }) => plans.push(`${request.from} ${request.id}`));
    const reply = mates[1]?.request(planApprovalProtocol, { to: 'lead', payload: { plan: 'Refactor auth' } });
    await team.flush();
    const id = reply?.id ?? '';
    expect(plans).toEqual([`bob ${id}`]);
    expect(r.teammate('bob')?.last).toMatchObject({ id, state: 'pending' });
    expect(r.pending('bob').map((x) => x.protocol)).toEqual(['plan_approval']);
    expect(r.trackers().plan_requests[id]).toEqual({ from: 'bob', plan: 'Refactor auth', status: 'pending' });
    expect(r.review(id, false, 'add a rollback')).toMatchObject({ ok: true, request: { state: 'rejected' } });
    await team.flush();
    await expect(reply).resolves.toMatchObject({ state: 'rejected', reason: 'add a rollback' });
    expect(r.teammate('bob')?.last).toMatchObject({ id, state: 'rejected' });
    expect(r.trackers().plan_requests).toEqual({
      [id]: { from: 'bob', plan: 'Refactor auth', status: 'rejected', feedback: 'add a rollback' },
    });
    expect(r.review(id, true)).toMatchObject({ ok: false, code: 'not_pending' });
    expect(r.review('req_404', true)).toMatchObject({ ok: false, code: 'unknown_request' });
  });

  it('approves without feedback; a shutdown id is not_a_plan', async () => {
    const { roster: r, mates } = setup();
    const reply = mates[0]?.request(planApprovalProtocol, { to: 'lead', payload: { plan: 'Ship it' } });
    await team.flush();
    expect(r.review(reply?.id ?? '', true, '')).toMatchObject({ ok: true, request: { state: 'approved' } });
    await team.flush();
    await expect(reply).resolves.toMatchObject({ state: 'approved', reason: undefined });
    const id = await ask(r, 'bob');
    expect(r.review(id, true)).toMatchObject({ ok: false, code: 'not_a_plan' });
  });

  it('answers a shutdown request sent to the lead with no, and ignores strangers', async () => {
    team = createTeam();
    const lead = team.add('lead');
    const alice = team.add('alice');
    const stranger = team.add('mallory');
    roster = createTeamLead({ correlator: lead, teammates: ['alice'], shutdownRefusal: 'not today' });
    const plans: string[] = [];
    roster.on('plan', ({ request }) => plans.push(request.id));
    const asked = alice.request(shutdownProtocol, { to: 'lead', payload: {} });
    const planned = stranger.request(planApprovalProtocol, { to: 'lead', payload: { plan: 'p' } });
    planned.catch(() => {}); // closed at the end, never reviewed
    await team.flush();
    await expect(asked).resolves.toMatchObject({ state: 'rejected', reason: 'not today' });
    expect(plans).toEqual([]);
    expect(roster.pending().map((r) => r.id)).toEqual([]);
    expect(roster.pending('mallory').map((r) => r.id)).toEqual([planned.id]);
    expect(roster.teammate('alice')).toEqual({ name: 'alice', status: 'working', lateReplies: 0 });
    expect(roster.teammate('mallory')).toBeUndefined();
    // The lead's correlator asking a stranger directly, and a message without a sender: nothing changes.
    const direct = lead.request(shutdownProtocol, { to: 'mallory', payload: {} });
    await team.flush();
    stranger.respond(direct.id, { approve: true });
    await team.flush();
    await expect(direct).resolves.toMatchObject({ state: 'approved' });
    expect(await lead.receive({ kind: 'response' })).toMatchObject({ ok: false, code: 'malformed' });
    expect(roster.teammates()).toEqual([{ name: 'alice', status: 'working', lateReplies: 0 }]);
  });
});

describe('createTeamLead: close and restart', () => {
  it('stops following the correlator once closed', async () => {
    const { roster: r, mates } = setup();
    const id = await ask(r, 'alice');
    r.close();
    mates[0]?.respond(id, { approve: true });
    await team.flush();
    expect(r.teammate('alice')).toMatchObject({ status: 'working' });
  });

  it('sees a pending shutdown restored from the Store after a restart, and its outcome', async () => {
    team = createTeam();
    const store = createMemoryStore({ clock: team.clock });
    const before = team.add('lead', { store });
    const alice = team.add('alice');
    const first = createTeamLead({ correlator: before, teammates: ['alice'] });
    const sent = await first.requestShutdown('alice', 'done');
    if (!sent.ok) throw new Error(sent.code);
    await team.flush();
    first.close();
    before.close();
    // The process restarts: a new correlator on the same store, a new team lead, then restore().
    const after = team.add('lead', { store });
    roster = createTeamLead({ correlator: after, teammates: ['alice'] });
    expect(roster.teammate('alice')?.status).toBe('working');
    expect(await after.restore()).toBe(1);
    expect(roster.teammate('alice')?.status).toBe('shutdown_pending');
    expect(await roster.requestShutdown('alice')).toMatchObject({ code: 'already_pending' });
    alice.respond(sent.requestId, { approve: true, reason: 'saved' });
    await team.flush();
    expect(roster.teammate('alice')).toMatchObject({ status: 'shut_down', last: { id: sent.requestId } });
  });
});
