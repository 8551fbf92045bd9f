import { isParleyError } from '@parley/core';
import { shutdownProtocol } from '@parley/correlate';
import { afterEach, describe, expect, it } from 'vitest';
import { REVISED_PLAN, RISKY_PLAN, TEAM, type TeammateScript } from '../src/cast.js';
import type { Team } from '../src/team.js';
import { type Setup, setup, traffic } from './helpers.js';

let current: Setup | undefined;
afterEach(() => {
  current?.team.close();
  current?.clock.assertNoPendingTimers();
  current = undefined;
});
function team(): Setup {
  current = setup();
  return current;
}

async function sent(t: Team, name: string): Promise<string> {
  const result = await t.requestShutdown(name);
  if (!result.ok) throw new Error(result.code);
  return result.requestId;
}

describe('requestShutdown', () => {
  it('refuses an unknown teammate and sends nothing', async () => {
    const { team: t } = team();
    const result = await t.requestShutdown('mallory');
    expect(result).toMatchObject({ ok: false, code: 'unknown_teammate' });
    expect(traffic(t)).toEqual([]);
    expect(t.lead.list()).toEqual([]);
  });

  it('refuses a second request while the first is pending', async () => {
    const { team: t } = team();
    await sent(t, 'dave');
    expect(await t.requestShutdown('dave')).toMatchObject({ ok: false, code: 'already_pending' });
    expect(traffic(t)).toEqual(['lead→dave request req_1']);
  });

  it('refuses to ask a teammate who has already shut down', async () => {
    const { team: t } = team();
    await sent(t, 'alice');
    await t.advance(5_000);
    expect(await t.requestShutdown('alice')).toMatchObject({ ok: false, code: 'already_shut_down' });
    expect(traffic(t)).toEqual(['lead→alice request req_1', 'alice→lead response req_1']);
  });

  it('refuses a reason the shutdown schema rejects, before anything is sent', async () => {
    const { team: t } = team();
    const result = await t.requestShutdown('alice', 'x'.repeat(5_000));
    expect(result).toMatchObject({ ok: false, code: 'invalid_payload' });
    expect(traffic(t)).toEqual([]);
    expect(t.members[0]?.status).toBe('working');
  });

  it('lets a busy teammate approve once her work is done', async () => {
    const { team: t } = team();
    const first = await sent(t, 'carol');
    await t.advance(10 * 60_000);
    const second = await sent(t, 'carol');
    await t.advance(5_000);
    expect(t.roster.trackers().shutdown_requests).toMatchObject({
      [first]: { status: 'rejected' },
      [second]: { status: 'approved', reason: 'migration finished and config.json written; exiting' },
    });
    expect(t.teammate('carol')?.exited).toBe(true);
  });

  it('expires on the clock, and its promise fails with timeout', async () => {
    const { team: t, clock } = team();
    const result = await t.requestShutdown('dave');
    if (!result.ok) throw new Error(result.code);
    await t.advance(29_999);
    expect(t.lead.get(result.requestId)?.state).toBe('pending');
    await t.advance(1);
    const error = await result.reply.catch((e: unknown) => e);
    expect(isParleyError(error, 'timeout')).toBe(true);
    expect(t.members.find((m) => m.name === 'dave')?.status).toBe('unresponsive');
    expect(clock.now() - (t.lead.get(result.requestId)?.createdAt ?? 0)).toBe(30_000);
  });

  it('leaves a request to an exited teammate unanswered: her closed correlator refuses it', async () => {
    const { team: t, transcript } = team();
    await sent(t, 'alice');
    await t.advance(5_000);
    // Bypass the host's check: the lead's correlator itself asks again.
    const again = t.lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await t.advance(30_000);
    await expect(again).rejects.toMatchObject({ code: 'timeout' });
    expect(t.hub.records.at(-1)?.deliveries[0]?.result).toMatchObject({
      ok: false,
      code: 'closed',
    });
    expect(transcript.lines.some((l) => l.endsWith('alice          ✗ refused a message: closed'))).toBe(true);
  });
});

describe('review', () => {
  async function planned(): Promise<{ t: Team; id: string }> {
    const { team: t } = team();
    t.startWork('bob');
    await t.advance(5_000);
    const id = Object.keys(t.roster.trackers().plan_requests)[0] ?? '';
    return { t, id };
  }

  it('sends the feedback back with the request_id, and bob resubmits a revision', async () => {
    const { t, id } = await planned();
    expect(t.review(id, false, 'add a rollback')).toMatchObject({ ok: true, request: { state: 'rejected' } });
    await t.advance(5_000);
    const plans = t.roster.trackers().plan_requests;
    expect(Object.values(plans).map((p) => [p.plan, p.status])).toEqual([
      [RISKY_PLAN, 'rejected'],
      [REVISED_PLAN, 'pending'],
    ]);
    expect(t.hub.records[1]?.message).toMatchObject({
      kind: 'response',
      request_id: id,
      response: { approve: false, reason: 'add a rollback' },
    });
    expect(t.lead.get('req_2')?.payload).toEqual({ plan: REVISED_PLAN, reason: `revision of ${id}` });
  });

  it('refuses to review the same plan twice (not_pending) and sends nothing more', async () => {
    const { t, id } = await planned();
    t.review(id, true);
    await t.deliver();
    expect(t.review(id, false, 'changed my mind')).toMatchObject({ ok: false, code: 'not_pending' });
    expect(traffic(t)).toEqual(['bob→lead request req_1', 'lead→bob response req_1']);
    expect(t.teammate('bob')?.correlator.get(id)?.state).toBe('approved');
  });

  it('refuses an unknown request_id and a shutdown request', async () => {
    const { t } = await planned();
    expect(t.review('req_99', true)).toMatchObject({ ok: false, code: 'unknown_request' });
    await sent(t, 'dave');
    expect(t.review('req_2', true)).toMatchObject({ ok: false, code: 'not_a_plan' });
    expect(t.lead.get('req_2')?.state).toBe('pending');
  });

  it('stops bob after his last plan is rejected', async () => {
    const { t, id } = await planned();
    t.review(id, false, 'no');
    await t.advance(5_000);
    t.review('req_2', false, 'still no');
    await t.advance(5_000);
    expect(Object.keys(t.roster.trackers().plan_requests)).toEqual(['req_1', 'req_2']);
    expect(current?.transcript.lines.at(-1)).toContain(
      'bob            plan req_2 rejected and no other plan; waits for the lead',
    );
  });

  it('lets an unreviewed plan expire after the human deadline; a late approval is refused', async () => {
    const { t, id } = await planned();
    await t.advance(30 * 60_000);
    expect(t.roster.trackers().plan_requests[id]?.status).toBe('expired');
    expect(t.review(id, true)).toMatchObject({ ok: false, code: 'not_pending' });
    expect(current?.transcript.lines.some((l) => l.includes(`bob            plan ${id} expired`))).toBe(true);
    expect(traffic(t)).toEqual(['bob→lead request req_1']);
  });
});

describe('forge', () => {
  it('refuses a reply from a teammate who was not asked, and the request stays pending', async () => {
    const { team: t } = team();
    const id = await sent(t, 'dave');
    expect(t.forge('alice', id, { approve: true })).toBeUndefined();
    await t.deliver();
    expect(t.ignored.map((r) => r.code)).toEqual(['wrong_sender']);
    expect(t.lead.get(id)?.state).toBe('pending');
    expect(t.members.find((m) => m.name === 'dave')?.status).toBe('shutdown_pending');
  });

  it('refuses a reply naming a request_id the lead never sent', async () => {
    const { team: t } = team();
    t.forge('alice', 'req_404', { approve: true });
    await t.deliver();
    expect(t.ignored.map((r) => r.code)).toEqual(['unknown_request']);
  });

  it('refuses an unknown teammate', () => {
    const { team: t } = team();
    expect(t.forge('mallory', 'req_1', { approve: true })).toMatchObject({ code: 'unknown_teammate' });
  });
});

describe('the lead as a responder', () => {
  it('answers a shutdown request from a teammate with no, naming the same request_id', async () => {
    const { team: t } = team();
    const reply = t.teammate('alice')?.correlator.request(shutdownProtocol, { to: 'lead', payload: {} });
    await t.deliver();
    await expect(reply).resolves.toMatchObject({
      state: 'rejected',
      reason: 'the lead shuts down last',
      from: 'lead',
    });
    expect(traffic(t)).toEqual(['alice→lead request req_1', 'lead→alice response req_1']);
    expect(t.members.map((m) => m.note)).not.toContain('plan req_1 awaits review');
  });
});

describe('a teammate slower than the deadline', () => {
  it('cannot answer once its own copy of the request expired, so nothing late is even sent', async () => {
    const alice = TEAM.find((s) => s.name === 'alice') as TeammateScript; // in the cast
    current = setup([{ ...alice, thinkMs: 40_000 }]);
    const { team: t, transcript } = current;
    await sent(t, 'alice');
    await t.advance(45_000);
    expect(t.lead.get('req_1')?.state).toBe('expired');
    expect(t.teammate('alice')?.correlator.get('req_1')?.state).toBe('expired');
    expect(transcript.lines).toContain('09:00:40  alice          cannot answer req_1: not_pending');
    expect(traffic(t)).toEqual(['lead→alice request req_1']);
    expect(t.teammate('alice')?.exited).toBe(false);
  });
});
