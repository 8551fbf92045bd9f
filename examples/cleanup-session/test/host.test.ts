// The host between replies: manual trigger only, resume from the stored JSON snapshot, close_pending
// across a restart, concurrent writers, and every failure path of the execute step.
import { isParleyError } from '@parley/core';
import { DEFAULT_TURN_LEASE_MS } from '@parley/chat-flow';
import { describe, expect, it } from 'vitest';
import { type CleanupHost, resumeCleanupSession, startCleanupSession } from '../src/host.js';
import { createCleanupSessions, sessionKey } from '../src/persistence.js';
import { type CleanupRecord, toSessionJson } from '../src/session-json.js';
import { createRig, linesOf, type Rig, TO_END, TO_EXECUTE } from './helpers.js';

async function drive(host: CleanupHost, replies: readonly string[]): Promise<void> {
  for (const text of replies) await host.reply(text);
}

// the stored flow session record, read back through chat-flow's public API (its stored text is the
// package's own format, which changes between versions)
const stored = async (rig: Rig, id = 'sess_1'): Promise<CleanupRecord> => {
  const read = await createCleanupSessions(rig.store.inner, { clock: rig.clock }).resume(id);
  if (!read.ok) throw new Error(`session ${id} could not be read: ${read.code}`);
  return read.session.record();
};

describe('execution', () => {
  it('runs nothing until the user triggers it by hand', async () => {
    const rig = createRig({ platform: ['success'] });
    const host = await startCleanupSession(rig.options);
    await drive(host, TO_EXECUTE);
    expect(host.step).toBe('execute');
    await host.reply('later');
    expect(rig.platform.calls).toHaveLength(0);
    expect(linesOf(rig.transcript, 'bot').at(-1)).toContain('Nothing was executed');
    await host.reply('proceed');
    expect(rig.platform.calls.map((c) => c.request.action)).toEqual(['takedown']);
    expect(host.step).toBe('notify');
  });

  it('stops before deleting anything when the export fails', async () => {
    const rig = createRig({ platform: [{ outcome: 'failed', error: { code: 'export_denied' } }] });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE.slice(0, -1), 'yes', 'proceed']);
    expect(rig.platform.calls.map((c) => c.request.action)).toEqual(['export']);
    expect(host.record().data.execution).toMatchObject({
      exported: false,
      completed: [],
      errors: [{ code: 'export_failed' }],
    });
    expect(host.step).toBe('execute');
  });

  it('turns a throwing adapter into a structured, redacted error and offers retry or manual', async () => {
    const rig = createRig({
      platform: [{ throws: new Error('ECONNRESET talking to vault://leak/me') }, 'success'],
    });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE, 'proceed']);
    expect(host.record().data.execution?.errors).toEqual([
      { code: 'adapter_error', message: 'ECONNRESET talking to vault://[redacted]', retryable: true },
    ]);
    await host.reply('hmm?');
    expect(rig.platform.calls).toHaveLength(1);
    expect(linesOf(rig.transcript, 'bot').at(-1)).toContain('Reply "retry"');
    await host.reply('retry');
    expect(rig.platform.calls).toHaveLength(2);
    expect(host.step).toBe('notify');
    expect(host.sessionJson().execution).toMatchObject({ status: 'success', manual: [] });
  });

  it('records the session for manual execution after three failed runs', async () => {
    const failed = { outcome: 'failed', error: { code: 'unavailable', retryable: true } } as const;
    const rig = createRig({ platform: [failed, failed, failed] });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE, 'proceed', 'retry', 'retry']);
    expect(host.record().flow.reviews).toEqual([
      expect.objectContaining({ step: 'execute', queue: 'manual-execution' }),
    ]);
    expect(linesOf(rig.transcript, 'flow').at(-1)).toContain('manual_review → queue manual-execution');
    await host.reply('manual');
    expect(host.step).toBe('notify');
    expect(host.sessionJson().execution).toMatchObject({
      status: 'failed',
      completed: [],
      manual: ['https://x.com/reposter/status/1', 'x:2'],
    });
    const queued: unknown[] = [];
    for await (const entry of rig.store.inner.list('cleanup:review:manual-execution:'))
      queued.push(entry.value);
    expect(queued).toHaveLength(3); // the flow's review of the third failure, then one per target handed over
  });
});

describe('resuming from the stored JSON snapshot', () => {
  it('continues mid-flow on another store (another replica) and ends as an uninterrupted run does', async () => {
    const straight = createRig({ platform: ['success'] });
    const whole = await startCleanupSession(straight.options);
    await drive(whole, [...TO_EXECUTE, 'proceed', ...TO_END]);

    const rig = createRig({ platform: ['success'] });
    const first = await startCleanupSession(rig.options);
    await drive(first, TO_EXECUTE.slice(0, 5)); // answered confirm #1
    const json = JSON.stringify(await rig.store.inner.get(sessionKey('sess_1')));
    const replica = createRig({ platform: ['success'] });
    await replica.store.inner.set(sessionKey('sess_1'), JSON.parse(json));
    const resumed = await resumeCleanupSession(
      { ...replica.options, generateId: rig.options.generateId },
      'sess_1',
    );
    expect(resumed.step).toBe('risk-confirm');
    expect(linesOf(replica.transcript, 'bot')).toEqual(['Please reconfirm #2 (YES).']);
    await drive(resumed, [...TO_EXECUTE.slice(5), 'proceed', ...TO_END]);
    expect(resumed.sessionJson()).toEqual(whole.sessionJson());
    expect(replica.platform.calls).toHaveLength(1);
    expect(rig.platform.calls).toHaveLength(0);
  });

  it('refuses a tampered snapshot without asking anything', async () => {
    const rig = createRig();
    const host = await startCleanupSession(rig.options);
    await drive(host, TO_EXECUTE.slice(0, 2));
    const record = await stored(rig);
    const goal = { ...record.flow.fields.goal, goal_type: 'nuke_everything' };
    const flow = { ...record.flow, fields: { ...record.flow.fields, goal } };
    const envelope = (await rig.store.inner.get(sessionKey('sess_1'))) as object;
    await rig.store.inner.set(sessionKey('sess_1'), { ...envelope, data: { ...record, flow } } as never);
    const before = rig.transcript.lines.length;
    const error = await resumeCleanupSession(rig.options, 'sess_1').catch((err: unknown) => err);
    expect(String(error)).toContain('(corrupt_record)');
    expect(rig.transcript.lines.length).toBe(before);
  });

  it('rejects a session id the store does not hold', async () => {
    const rig = createRig();
    await expect(resumeCleanupSession(rig.options, 'sess_404')).rejects.toThrow(
      'No cleanup session sess_404',
    );
  });

  it('applies a reply on another host to the step the first host saved, never over it', async () => {
    const rig = createRig();
    const host = await startCleanupSession(rig.options);
    await host.reply(TO_EXECUTE[0]);
    const a = await resumeCleanupSession(rig.options, 'sess_1');
    const b = await resumeCleanupSession(rig.options, 'sess_1');
    await a.reply(TO_EXECUTE[1]);
    const saved = (await stored(rig)).flow.history;
    await b.reply(TO_EXECUTE[2]); // b reads what a saved and answers the step after it
    const after = (await stored(rig)).flow.history;
    expect(after.slice(0, saved.length)).toEqual(saved); // a's write kept
    expect(after).toHaveLength(saved.length + 1);
  });
});

describe('close_pending', () => {
  it('stays close_pending in the store when every save fails, and closes when resumed', async () => {
    const rig = createRig({ platform: ['success'], saveDelaysMs: [1_000] });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE, 'proceed', 'telegram']);
    rig.store.fail('set');
    await host.reply('yes, export the audit');
    expect(host.done).toBe(false);
    const pending = await stored(rig);
    expect(pending.flow.mark).toBe('close_pending');
    expect(toSessionJson(pending).state).toBe('close_pending');
    expect(linesOf(rig.transcript, 'host').at(-1)).toContain('retried when the session is resumed');
    expect(rig.clock.pendingTimers()).toBe(0);

    rig.store.heal();
    const resumed = await resumeCleanupSession(rig.options, 'sess_1');
    expect(resumed.done).toBe(true);
    expect(resumed.sessionJson()).toMatchObject({
      state: 'closed',
      close: { audit_ref: 'cleanup:audit:sess_1' },
    });
    expect(resumed.auditExport).toMatchObject({ kind: 'cleanup-audit' });
  });

  it('retries a failed session save on the clock and goes on', async () => {
    const rig = createRig({ saveDelaysMs: [500] });
    const host = await startCleanupSession(rig.options);
    rig.store.fail('compareAndSet', { times: 1 });
    await host.reply(TO_EXECUTE[0]);
    expect(linesOf(rig.transcript, 'host').at(-1)).toContain('session save failed (try 1)');
    expect((await stored(rig)).flow.state).toBe('platform-scope');
  });

  it('gives up on a session save after the last try and says so', async () => {
    const rig = createRig({ saveDelaysMs: [500] });
    const host = await startCleanupSession(rig.options);
    rig.store.fail('compareAndSet');
    await expect(host.reply(TO_EXECUTE[0])).rejects.toSatisfy((err) => isParleyError(err, 'injected_fault'));
    expect(rig.store.calls.filter((c) => c.method === 'compareAndSet' && c.failed)).toHaveLength(2);
  });
});

describe('after close', () => {
  it('refuses further replies with flow_done', async () => {
    const rig = createRig({ platform: ['success'] });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE, 'proceed', ...TO_END]);
    await host.reply('one more thing');
    expect(linesOf(rig.transcript, 'flow').at(-1)).toContain('✗ flow_done');
    expect(rig.platform.calls).toHaveLength(1);
  });
});

describe('slot filling', () => {
  it('blocks on "ask" without an answer, then takes a plain yes as the answer', async () => {
    const rig = createRig({ platform: ['success', 'success'] });
    const host = await startCleanupSession(rig.options);
    await drive(host, [...TO_EXECUTE.slice(0, -1), 'ask']);
    expect(host.record().flow.status).toBe('blocked');
    expect(linesOf(rig.transcript, 'flow').at(-1)).toContain('missing export_answer');
    await host.reply('yes');
    expect(host.sessionJson().export).toEqual({ export_before_delete: 'ask', export_answer: 'yes' });
    expect(host.record().data.plan).toMatchObject({ exportFirst: true });
  });
});

describe('a restart between the platform run and its save', () => {
  it('never runs the platform again, says why, and refuses a retry until someone checks', async () => {
    const rig = createRig({ platform: ['success', 'success'] });
    let calls = 0;
    const hanging = {
      execute: () => {
        calls++;
        return new Promise<never>(() => undefined); // the process dies while the platform works
      },
    };
    const first = await startCleanupSession({ ...rig.options, platform: hanging });
    await drive(first, TO_EXECUTE);
    void first.reply('proceed');
    for (let tick = 0; tick < 100 && calls === 0; tick++) await new Promise((r) => setImmediate(r));
    expect(calls).toBe(1);
    first.stop();
    // the dead process's turn holds the session's lease until it expires; then the restart takes it
    rig.clock.advance(DEFAULT_TURN_LEASE_MS);

    const resumed = await resumeCleanupSession(rig.options, 'sess_1');
    expect(linesOf(rig.transcript, 'system')).toContainEqual(
      expect.stringMatching(/the execute claimed at .* is not run again/),
    );
    await expect(resumed.reply('retry')).rejects.toThrow('outcome_unknown');
    expect(rig.platform.calls).toHaveLength(0);
  });
});

describe('a reply delivered twice', () => {
  it('counts once, also after a restart: the platform runs once and confirmations are not doubled', async () => {
    const rig = createRig({ platform: ['success', 'success'] });
    const host = await startCleanupSession(rig.options);
    for (const [i, text] of TO_EXECUTE.entries()) await host.reply(text, `m${i}`);
    await host.reply('YES', 'm4'); // a confirmation redelivered: not taken as the next answer
    expect([host.step, rig.platform.calls.length]).toEqual(['execute', 0]); // "YES" here would run it
    await host.reply('proceed', 'm-go');
    host.stop();
    const resumed = await resumeCleanupSession(rig.options, 'sess_1');
    await resumed.reply('proceed', 'm-go');
    expect(rig.platform.calls).toHaveLength(1);
    expect(resumed.step).toBe('notify');
  });
});
