// The lead is a model too (team-protocols.md): its scripted model acts only through the lead's
// tools, a refused call comes back as tool_feedback, and teammates are spawned by name as the
// document's try-it prompts do — in the scripted run and in the console.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECRUITS } from '../src/cast.js';
import { createLeadConsole } from '../src/console.js';
import { createLeadAgent, type LeadAgent, scriptedLead, TRY_IT_PROMPTS } from '../src/lead.js';
import { type LeadRunResult, runLeadModel } from '../src/lead-run.js';
import { PLAN_FEEDBACK } from '../src/scenarios.js';
import { type Setup, setup, traffic } from './helpers.js';

describe('the lead-model run: the try-it prompts typed to the lead’s model', () => {
  let run: LeadRunResult;
  beforeAll(async () => {
    run = await runLeadModel();
  });

  it('spawns alice, bob and charlie by name and ends as the prompts ask', () => {
    expect(run.members.map((m) => [m.name, m.status])).toEqual([
      ['alice', 'shut_down'],
      ['bob', 'working'],
      ['charlie', 'working'],
    ]);
    expect(run.exited).toEqual(['alice']);
    expect(run.trackers).toEqual({
      shutdown_requests: { req_1: expect.objectContaining({ target: 'alice', status: 'approved' }) },
      plan_requests: {
        req_2: expect.objectContaining({ from: 'bob', status: 'rejected', feedback: PLAN_FEEDBACK }),
        req_3: expect.objectContaining({ from: 'bob', status: 'approved' }),
        req_4: expect.objectContaining({ from: 'charlie', status: 'approved' }),
      },
    });
    expect(run.pendingTimers).toBe(0);
  });

  it('feeds a refused call back as tool_feedback, and the retry with it goes through', () => {
    const prompts = run.model.requests;
    const retry = prompts.find((prompt) => prompt.tool_feedback !== undefined);
    expect(retry?.tool_feedback?.failed_calls).toEqual([
      expect.objectContaining({ tool: 'shutdown_request', tool_reason: 'unknown_peer' }),
    ]);
    expect(retry).toMatchObject({ type: 'instruction', text: TRY_IT_PROMPTS[0] });
    expect(run.lines).toContain(
      '09:00:01  lead           ✗ shutdown_request refused: unknown_peer — "alice" is not a teammate you can ask → tool_feedback',
    );
  });

  it('hears plans as protocol notices and reviews them through plan_review', () => {
    const notices = run.model.requests.filter((prompt) => prompt.type === 'protocol_request');
    expect(notices.map((n) => n.type === 'protocol_request' && [n.from, n.answer_with])).toEqual([
      ['bob', 'plan_review'],
      ['bob', 'plan_review'],
      ['charlie', 'plan_review'],
    ]);
    const outputs = run.model.calls.flatMap((call) => call.output?.tool_calls.map((c) => c.tool) ?? []);
    expect(outputs).toEqual([
      'shutdown_request',
      'spawn_teammate',
      'shutdown_request',
      'list_teammates',
      'spawn_teammate',
      'plan_review',
      'plan_review',
      'spawn_teammate',
      'plan_review',
    ]);
  });

  it('lists the teammates for the model with alice shut down', () => {
    expect(run.lines).toContain(
      '09:00:16  lead           list_teammates → [{"name":"alice","role":"coder","status":"shut_down"}]',
    );
  });
});

describe('the lead’s tools', () => {
  let rig: Setup;
  let lead: LeadAgent;
  afterEach(() => {
    lead.close();
    rig.team.close();
    rig.clock.assertNoPendingTimers();
  });

  it('refuses to spawn a name not in the cast or one already on the team, as tool_feedback', async () => {
    rig = setup(RECRUITS, 'none');
    lead = createLeadAgent(rig.team, scriptedLead(rig.clock));
    lead.instruct('Spawn zed to help.');
    await rig.team.advance(5_000);
    lead.instruct('Spawn charlie, have him submit a plan, then approve it.');
    lead.instruct('Spawn charlie again.');
    await rig.team.advance(10_000);
    const failed = lead.model.requests.flatMap((p) => p.tool_feedback?.failed_calls ?? []);
    expect(failed.map((f) => f.tool_reason)).toEqual(['unknown_teammate', 'already_spawned']);
    expect(rig.team.members.map((m) => m.name)).toEqual(['charlie']);
  });

  it('sends nothing on the hub that no tool call of the model asked for', async () => {
    rig = setup(RECRUITS, 'none');
    lead = createLeadAgent(rig.team, scriptedLead(rig.clock));
    lead.instruct('List teammates to see who is there');
    await rig.team.advance(5_000);
    expect(traffic(rig.team)).toEqual([]);
    expect(rig.team.members).toEqual([]);
  });
});

describe('the console spawns teammates by name', () => {
  let rig: Setup;
  afterEach(() => {
    rig.team.close();
    rig.clock.assertNoPendingTimers();
  });

  it('spawns, lists, and refuses an unknown name', async () => {
    rig = setup(RECRUITS, 'none');
    const console = createLeadConsole(rig.team);
    expect(await console.handle('spawn alice')).toEqual([]);
    expect(await console.handle('list')).toEqual(['alice (coder): working']);
    expect(await console.handle('spawn alice')).toEqual([
      'refused (already_spawned): alice is already on the team',
    ]);
    expect(await console.handle('spawn zed')).toEqual([
      'refused (unknown_teammate): No one called "zed" to spawn',
    ]);
    expect(await console.handle('ask Spawn bob')).toEqual([
      'no lead model in this session: start with --interactive --lead-model',
    ]);
  });

  it('passes the try-it prompts to the lead’s model with ask', async () => {
    rig = setup(RECRUITS, 'none');
    const lead = createLeadAgent(rig.team, scriptedLead(rig.clock));
    const console = createLeadConsole(rig.team, lead);
    await console.handle(`ask ${TRY_IT_PROMPTS[0]}`);
    await console.handle('wait 5');
    expect(rig.team.members.map((m) => [m.name, m.status])).toEqual([['alice', 'shut_down']]);
    lead.close();
  });
});
