// Confirmations on a real Restate server: the options, a failed send, superseding and refusing
// admission rules, answers after the decision, and a wait on a decided or unknown confirmation.
import type { ConfirmDecision } from '@parley/confirm';
import { isParleyError } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfirmations, type InboundResult, type RequestConfirmationResult } from '../src/index.js';
import { confirmations, outbox, rejecting, superseding, toolService } from './confirm-services.js';
import { call, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';

let server: RestateServer;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([confirmations, superseding, rejecting, toolService()]));
});
afterAll(async () => stop?.());

let n = 0;
const session = (prefix = 'edge'): string => `${prefix}:${process.pid}${n++}`;
const path = (object: string, key: string, handler: string): string =>
  `${object}/${encodeURIComponent(key)}/${handler}`;
const request = (object: string, key: string, id: string): Promise<RequestConfirmationResult> =>
  call(server.ingressUrl, path(object, key, 'request'), {
    id,
    request: {
      sessionKey: key,
      action: { name: 'deploy', args: { id } },
      summary: `Deploy ${id}`,
      requester: 'alice',
    },
  });
const reply = (object: string, key: string, text: string, senderId = 'alice'): Promise<InboundResult> =>
  call(server.ingressUrl, path(object, key, 'reply'), { text, senderId });
const decision = (object: string, key: string, id: string): Promise<ConfirmDecision | null> =>
  call(server.ingressUrl, path(object, key, 'decision'), id);

describe('defineConfirmations options', () => {
  const send = async (): Promise<boolean> => true;
  it.each([
    ['an empty name', { name: '', send }],
    ['a send that is not a function', { name: 'c', send: 'no' as unknown as typeof send }],
    ['a bad standingAllowanceMs', { name: 'c', send, rules: { standingAllowanceMs: -1 } }],
    ['rules the gate refuses', { name: 'c', send, rules: { maxPending: 0 } }],
  ])('refuses %s (invalid_argument)', (_what, options) => {
    let thrown: unknown;
    try {
      defineConfirmations(options);
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'invalid_argument')).toBe(true);
  });
});

describe('confirmations: sends, admission and late answers', () => {
  it('decides a confirmation whose prompt could not be sent, as the step says', async () => {
    const key = session('down');
    expect(await request('confirmations', key, 'c1')).toEqual({ ok: true, id: 'c1', state: 'decided' });
    expect(await decision('confirmations', key, 'c1')).toMatchObject({ outcome: 'aborted' });
  });

  it('supersedes the prompted confirmation with a newer one, and forgets a decision at once without an after window', async () => {
    const key = session();
    expect(await request('superseding', key, 'a')).toMatchObject({ ok: true, state: 'prompted' });
    expect(await request('superseding', key, 'b')).toMatchObject({ ok: true, state: 'prompted' });
    expect(await decision('superseding', key, 'a')).toMatchObject({
      outcome: 'superseded',
      reason: 'superseded',
    });
    expect(await reply('superseding', key, 'more', 'bob')).toMatchObject({
      id: 'b',
      verdict: { kind: 'page' },
    });
    expect(outbox).toContainEqual(expect.objectContaining({ type: 'page', index: 0, sessionKey: key }));
    expect(await reply('superseding', key, '确认', 'bob')).toMatchObject({
      id: 'b',
      verdict: { outcome: 'confirmed' },
    });
    expect(await reply('superseding', key, '确认', 'bob')).toEqual({ consumed: false }); // nothing remembered
    const b = await decision('superseding', key, 'b');
    expect((b?.expiresAt ?? 0) - (b?.requestedAt ?? 0)).toBeGreaterThanOrEqual(120_000); // the object's default window
  });

  it('refuses a request while the session has a prompted one (whenPending: reject)', async () => {
    const key = session();
    await request('rejecting', key, 'a');
    expect(await request('rejecting', key, 'b')).toEqual({ ok: true, id: 'b', state: 'decided' });
    expect(await decision('rejecting', key, 'b')).toMatchObject({
      outcome: 'refused',
      reason: 'session_busy',
    });
    expect(await reply('rejecting', key, '确认')).toMatchObject({
      id: 'a',
      verdict: { outcome: 'confirmed' },
    });
  });

  it('forgets a decision once its after-decision window (1 ms) is over', async () => {
    const key = session();
    await request('rejecting', key, 'a');
    await reply('rejecting', key, '确认');
    await waitFor('the 1 ms after-decision window to pass on the server clock', 5_000, async () => {
      const answer = await reply('rejecting', key, '确认');
      return !answer.consumed; // absorbed while the window lasts, then forgotten: it goes on to the agent
    });
    const state = (await server.state('rejecting', key, 'session')) as { lately: string | null };
    expect(state).toMatchObject({ lately: null, confirmations: {} });
  });

  it('absorbs the approver’s answer sent again after the decision and tells them what was decided', async () => {
    const key = session();
    await request('confirmations', key, 'c1');
    await reply('confirmations', key, '确认');
    const again = await reply('confirmations', key, '确认');
    expect(again).toMatchObject({
      consumed: true,
      id: 'c1',
      verdict: { kind: 'ignore', code: 'after_decision' },
    });
    expect(outbox).toContainEqual({ type: 'late', outcome: 'confirmed', sessionKey: key, id: 'c1' });
  });
});

describe('awaitConfirmation', () => {
  it('returns a decision made before the wait began', async () => {
    const key = session();
    await request('confirmations', key, 'c1');
    await reply('confirmations', key, '取消');
    const waited = await call<ConfirmDecision>(server.ingressUrl, 'tool/wait', { sessionKey: key, id: 'c1' });
    expect(waited).toMatchObject({ id: 'c1', outcome: 'cancelled' });
  });

  it('fails for good on a confirmation never requested (unknown_confirmation)', async () => {
    const answer = await http('POST', `${server.ingressUrl}/tool/wait`, {
      sessionKey: session(),
      id: 'nope',
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.text).toContain('unknown_confirmation');
  });
});
