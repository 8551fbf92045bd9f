// The lead's roster survives a restart when it is given a Store: a teammate that shut down (or
// went unresponsive) stays so, and is not asked again; a record it cannot read is reported, not trusted.
import { createMemoryStore, type JsonValue, type Store } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTeamLead, type TeamLead, type TeamLeadEvents } from '../src/index.js';
import { createTeam, type Team } from './helpers.js';

let team: Team;
const leads: TeamLead[] = [];
afterEach(() => {
  for (const lead of leads.splice(0)) lead.close();
  team.close();
});

function lead(store: Store, teammates = ['alice', 'bob']): TeamLead {
  const created = createTeamLead({ correlator: team.add('lead', { store }), teammates, store });
  leads.push(created);
  return created;
}

async function shutDown(roster: TeamLead, name: string, approve: boolean): Promise<void> {
  const sent = await roster.requestShutdown(name);
  if (!sent.ok) throw new Error(sent.code);
  await team.flush();
  team.parties.get(name)?.respond(sent.requestId, { approve });
  await team.flush();
  await roster.idle();
}

describe('createTeamLead with a store: restart', () => {
  it('restores shut_down and unresponsive teammates, and refuses to ask them again', async () => {
    team = createTeam();
    const store = createMemoryStore({ clock: team.clock });
    team.add('alice');
    team.add('bob');
    const first = lead(store);
    await first.restore();
    await shutDown(first, 'alice', true);
    const sent = await first.requestShutdown('bob');
    if (!sent.ok) throw new Error(sent.code);
    for (let turn = 0; turn < 20 && team.wire.length === 0; turn++) await Promise.resolve(); // stored, then sent
    expect(team.wire, 'the request to bob on the wire').toHaveLength(1);
    team.wire.length = 0; // bob never answers
    team.clock.advance(10 * 60_000);
    await team.flush();
    await first.idle();
    expect(first.teammate('bob')?.status).toBe('unresponsive');
    first.close();
    team.parties.get('lead')?.close();

    const after = lead(store);
    expect(after.teammate('alice')?.status).toBe('working'); // before restore()
    expect(await after.restore()).toEqual({ restored: 2, ignored: [] });
    expect(after.teammates().map((t) => [t.name, t.status])).toEqual([
      ['alice', 'shut_down'],
      ['bob', 'unresponsive'],
    ]);
    expect(await after.requestShutdown('alice')).toMatchObject({ ok: false, code: 'already_shut_down' });
    expect(team.wire).toEqual([]);
  });

  it('keeps the count of late replies across a restart', async () => {
    team = createTeam();
    const store = createMemoryStore({ clock: team.clock });
    team.add('alice');
    const first = lead(store, ['alice']);
    const sent = await first.requestShutdown('alice');
    if (!sent.ok) throw new Error(sent.code);
    await team.flush();
    team.clock.advance(10 * 60_000); // expires before alice's answer arrives
    await team.flush();
    await team.parties.get('lead')?.receive({
      kind: 'response',
      request_id: sent.requestId,
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
      response: { approve: true },
    });
    await first.idle();
    expect(first.teammate('alice')?.lateReplies).toBe(1);
    first.close();
    team.parties.get('lead')?.close();
    const after = lead(store, ['alice']);
    await after.restore();
    expect(after.teammate('alice')).toMatchObject({ status: 'unresponsive', lateReplies: 1 });
  });

  it('ignores a record it cannot read (corrupt, another version, another name) and says which', async () => {
    team = createTeam();
    const store = createMemoryStore({ clock: team.clock });
    const bad: Record<string, JsonValue> = {
      alice: { v: 2, status: 'shut_down', lateReplies: 0 },
      bob: { v: 1, status: 'gone', lateReplies: 0 },
      carol: 'shut_down',
      dave: { v: 1, status: 'shut_down', lateReplies: -1 },
    };
    for (const [name, value] of Object.entries(bad)) await store.set(`parley:team:lead:${name}`, value);
    const roster = lead(store, ['alice', 'bob', 'carol', 'dave', 'erin']);
    expect(await roster.restore()).toEqual({ restored: 0, ignored: ['alice', 'bob', 'carol', 'dave'] });
    expect(roster.teammates().every((t) => t.status === 'working')).toBe(true);
  });

  it('reports a failed write as an error event and keeps the status in memory', async () => {
    team = createTeam();
    const memory = createMemoryStore({ clock: team.clock });
    const failing: Store = Object.create(memory);
    failing.set = async () => {
      throw new Error('disk full');
    };
    team.add('alice');
    const roster = lead(failing, ['alice']);
    const errors: TeamLeadEvents['error'][] = [];
    roster.on('error', (e) => errors.push(e));
    await shutDown(roster, 'alice', true);
    expect(roster.teammate('alice')?.status).toBe('shut_down');
    expect(errors).toMatchObject([{ teammate: 'alice', error: { message: 'disk full' } }]);
  });

  it('without a store, restore() finds nothing and idle() resolves at once', async () => {
    team = createTeam();
    const roster = createTeamLead({ correlator: team.add('lead'), teammates: ['alice'] });
    leads.push(roster);
    expect(await roster.restore()).toEqual({ restored: 0, ignored: [] });
    await roster.idle();
  });
});
