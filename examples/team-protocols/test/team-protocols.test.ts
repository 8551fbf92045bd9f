import { readFileSync } from 'node:fs';
import { createManualClock, createSequentialIds } from '@parley/core';
import { requestMachine, toMermaid } from '@parley/fsm';
import { describe, expect, it } from 'vitest';
import { REVISED_PLAN, RISKY_PLAN } from '../src/cast.js';
import { runTeamProtocols, START_AT } from '../src/run.js';
import { PLAN_APPROVAL, PLAN_FEEDBACK } from '../src/scenarios.js';
import { describeMessage } from '../src/wire.js';

describe('runTeamProtocols (the five scripted scenarios)', () => {
  const run = runTeamProtocols({
    clock: createManualClock({ now: START_AT }),
    generateId: createSequentialIds('req_'),
  });

  it('ends with every shutdown request in its final state', async () => {
    const { trackers } = await run;
    expect(trackers.shutdown_requests).toEqual({
      req_1: { target: 'alice', status: 'approved', reason: 'all files saved, tests green; exiting' },
      req_2: {
        target: 'carol',
        status: 'rejected',
        reason: 'busy: migrating orders (batch 3 of 5) and config.json is half written',
      },
      req_3: { target: 'dave', status: 'expired' },
      req_6: { target: 'erin', status: 'expired' },
    });
  });

  it('ends with the risky plan rejected with feedback and its revision approved', async () => {
    const { trackers } = await run;
    expect(trackers.plan_requests).toEqual({
      req_4: { from: 'bob', plan: RISKY_PLAN, status: 'rejected', feedback: PLAN_FEEDBACK },
      req_5: { from: 'bob', plan: REVISED_PLAN, status: 'approved', feedback: PLAN_APPROVAL },
    });
  });

  it('refuses the wrong teammate and the late reply, and counts nothing else', async () => {
    const { ignored, stats } = await run;
    expect(ignored.map((r) => [r.code, r.requestId, r.from])).toEqual([
      ['wrong_sender', 'req_6', 'carol'],
      ['late', 'req_6', 'erin'],
    ]);
    expect(stats.refused).toEqual({ wrong_sender: 1, late: 1 });
    expect(stats.pending).toBe(0);
    expect(stats.incoming).toBe(0);
  });

  it('keeps the roster the handlers wrote, and only approving teammates exit', async () => {
    const { members, exited } = await run;
    expect(members.map((m) => [m.name, m.status])).toEqual([
      ['alice', 'shut_down'],
      ['bob', 'working'],
      ['carol', 'working'],
      ['dave', 'unresponsive'],
      ['erin', 'unresponsive'],
    ]);
    expect(members.find((m) => m.name === 'erin')?.note).toBe(
      'no answer to req_6 by 09:01:30; a late reply was ignored',
    );
    expect(exited).toEqual(['alice', 'erin']);
  });

  it('records every message on the wires, and none from dave', async () => {
    const { wires } = await run;
    expect(wires.dave?.map((r) => r.message.kind)).toEqual(['request']);
    expect(wires.alice?.map((r) => `${r.from}:${r.message.kind}`)).toEqual([
      'lead:request',
      'alice:response',
    ]);
    const bob = wires.bob?.map((r) => `${r.message.kind} ${r.message.request_id}`);
    expect(bob).toEqual(['request req_4', 'response req_4', 'request req_5', 'response req_5']);
    const late = wires.erin?.find((r) => r.from === 'erin');
    expect(late?.fault).toBe('delay');
    expect(late?.deliveries).toHaveLength(1);
    expect(late?.deliveries[0]?.result).toMatchObject({ ok: false, code: 'late', requestId: 'req_6' });
    const forged = wires.carol?.find((r) => r.message.request_id === 'req_6');
    expect(forged?.deliveries[0]?.result).toMatchObject({
      ok: false,
      code: 'wrong_sender',
      state: 'pending',
    });
    expect(Object.values(wires).every((records) => records.every((r) => r.status === 'delivered'))).toBe(
      true,
    );
  });

  it('writes every message to the transcript with its request_id, at the time it was sent', async () => {
    const { wires, lines } = await run;
    const records = Object.values(wires).flat();
    expect(records).toHaveLength(12);
    for (const record of records) {
      const time = new Date(record.sentAt ?? 0).toISOString().slice(11, 19);
      const line = `${time}  ${`${record.from} → ${record.to}`.padEnd(14)} ${describeMessage(record.message)}`;
      expect(lines.some((l) => l.startsWith(line))).toBe(true);
    }
  });

  it('tells the story in order: wrong sender while pending, then expiry, then the late reply', async () => {
    const { lines } = await run;
    const at = (text: string): number => lines.findIndex((l) => l.includes(text));
    expect(at('refused response req_6 from carol: wrong_sender')).toBeGreaterThan(0);
    expect(lines).toContain('09:01:10  lead           reported: req_6 was sent to erin; it stays pending');
    expect(at('req_6 shutdown (erin) → expired')).toBeGreaterThan(at('from carol: wrong_sender'));
    expect(at('09:01:47  lead           ✗ refused response req_6 from erin: late')).toBeGreaterThan(
      at('req_6 shutdown (erin) → expired'),
    );
    expect(lines).toContain(
      "09:01:47  lead           reported: erin's reply came 17 s after req_6 expired; ignored, req_6 stays expired",
    );
    expect(lines).toContain('09:00:45  lead           waitFor(req_3) → timeout');
    expect(lines).toContain('09:00:25  lead           req_3 is still pending after 15 s');
    expect(lines).toContain('09:00:52  bob            revises the plan rejected in req_4');
    expect(lines.filter((l) => l.includes('→ approved'))).toHaveLength(2);
  });

  it('renders the /team view with every teammate and every request', async () => {
    const { view, lines } = await run;
    const rows = view.split('\n');
    expect(rows[0]).toBe('/team at 09:01:50 — lead + 5 teammates');
    expect(rows).toContain('  dave   tester      unresponsive  no answer to req_3 by 09:00:40');
    expect(rows).toContain(
      '  alice  coder       shut down     approved req_1: all files saved, tests green; exiting',
    );
    expect(rows).toContain('requests (6): 0 pending · 2 approved · 2 rejected · 2 expired · 0 cancelled');
    expect(rows.find((r) => r.startsWith('  req_3 '))).toBe(
      '  req_3       shutdown       lead  dave   expired   09:00:10  09:00:40  the nightly suite can wait; pleas…',
    );
    expect(rows.find((r) => r.startsWith('  req_4 '))).toMatch(
      /^ {2}req_4 +plan_approval +bob +lead +rejected +09:00:47 +09:00:50 +Refactor the auth module in one g… +Too risky/,
    );
    expect(rows.at(-1)).toBe('refused replies: wrong_sender 1 · late 1');
    expect(lines.slice(-rows.length)).toEqual(rows);
  });

  it('leaves no timer behind once everything is closed', async () => {
    expect((await run).pendingTimers).toBe(0);
  });
});

describe('runTeamProtocols options', () => {
  it('runs only the scenarios asked for', async () => {
    const result = await runTeamProtocols({ scenarios: ['never-answers'] });
    expect(result.trackers).toEqual({
      shutdown_requests: { req_1: { target: 'dave', status: 'expired' } },
      plan_requests: {},
    });
    expect(result.lines[0]).toBe(
      '━━ 1. never-answers: dave never answers; the request expires on the clock after 30 s',
    );
    expect(result.ignored).toEqual([]);
  });

  it('writes each line to the output sink as it goes', async () => {
    const seen: string[] = [];
    const result = await runTeamProtocols({
      scenarios: ['shutdown-approved'],
      output: (line) => seen.push(line),
    });
    expect(seen).toEqual(result.lines);
  });

  it('refuses an unknown scenario name', async () => {
    // @ts-expect-error not a scenario name
    await expect(runTeamProtocols({ scenarios: ['nope'] })).rejects.toThrow('Unknown scenario "nope"');
  });
});

describe('README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const textBlocks = [...readme.matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? '');

  it('shows the request machine exactly as toMermaid draws it', () => {
    const block = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(toMermaid(requestMachine));
  });

  it('shows the /team view exactly as the scripted run ends', async () => {
    const { view } = await runTeamProtocols();
    expect(textBlocks.find((b) => b.startsWith('/team at'))).toBe(view);
  });

  it('walks through lines the transcript really has', async () => {
    const { lines } = await runTeamProtocols();
    const walk = textBlocks.find((b) => b.startsWith('09:01:00'))?.split('\n') ?? [];
    expect(walk.length).toBeGreaterThan(5);
    const from = lines.indexOf(walk[0] ?? '');
    expect(lines.slice(from, from + walk.length)).toEqual(walk);
  });
});
