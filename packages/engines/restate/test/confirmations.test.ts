// Confirmations on a real Restate server: every change decided by @parley/confirm's confirmStep.
import type { AuthorizeResult, ConfirmDecision } from '@parley/confirm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundResult, RequestConfirmationResult } from '../src/index.js';
import { confirmations, type DeployInput, outbox, toolService } from './confirm-services.js';
import { call, outputOf, send, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';

let server: RestateServer;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([confirmations, toolService()]));
});
afterAll(async () => stop?.());

let n = 0;
const session = (): string => `chat:${process.pid}:${n++}`;

const deploy = (input: DeployInput): Promise<string> => send(server.ingressUrl, 'tool/deploy', input);
const reply = (
  sessionKey: string,
  text: string,
  senderId: string,
  eventId?: string,
): Promise<InboundResult> =>
  call(server.ingressUrl, `confirmations/${encodeURIComponent(sessionKey)}/reply`, {
    text,
    senderId,
    ...(eventId === undefined ? {} : { eventId }),
  });
const decision = (sessionKey: string, id: string): Promise<ConfirmDecision | null> =>
  call(server.ingressUrl, `confirmations/${encodeURIComponent(sessionKey)}/decision`, id);
const prompted = (sessionKey: string, id: string): boolean =>
  outbox.some((out) => out.type === 'prompt' && out.sessionKey === sessionKey && out.record.id === id);
const waitForPrompt = (sessionKey: string, id: string): Promise<void> =>
  waitFor(`the prompt of ${id} to be sent`, 20_000, async () => prompted(sessionKey, id));
const use = (input: DeployInput): Promise<AuthorizeResult> => call(server.ingressUrl, 'tool/use', input);

/** The awakeable ids the waiters of confirmation `id` registered in the session's state. */
async function watchers(sessionKey: string, id: string): Promise<string[]> {
  const state = (await server.state('confirmations', sessionKey, 'session')) as
    | { watchers: Record<string, string[]> }
    | undefined;
  return state?.watchers[id] ?? [];
}

describe('confirmations on a Restate server', () => {
  it('confirms by the requester’s reply after the prompt’s delivery, and the tool acts once', async () => {
    const key = session();
    const input = { sessionKey: key, id: 'c1', requester: 'alice', env: 'prod' };
    const invocation = await deploy(input);
    await waitForPrompt(key, 'c1');
    const answered = await reply(key, '确认', 'alice');
    expect(answered).toMatchObject({
      consumed: true,
      id: 'c1',
      verdict: { kind: 'settle', outcome: 'confirmed' },
    });
    expect(await outputOf(server.ingressUrl, invocation)).toBe('deployed');
    expect(await decision(key, 'c1')).toMatchObject({
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'alice',
    });
    expect(await use(input)).toEqual({ ok: false, code: 'already_used' });
    expect(await use({ ...input, env: 'staging' })).toEqual({ ok: false, code: 'action_mismatch' });
  });

  it('never confirms by a reply that reached the session before the prompt’s send began', async () => {
    const key = session();
    expect(await reply(key, '确认', 'alice')).toEqual({ consumed: false }); // nothing to answer yet
    const first = await deploy({ sessionKey: key, id: 'a', requester: 'alice', env: 'one' });
    await waitForPrompt(key, 'a');
    const second = await deploy({ sessionKey: key, id: 'b', requester: 'alice', env: 'two' });
    await waitFor('b to be queued behind a', 20_000, async () => {
      const state = (await server.state('confirmations', key, 'session')) as { queue: string[] } | undefined;
      return state?.queue.includes('b') === true;
    });
    expect(prompted(key, 'b')).toBe(false);
    // One "确认": it answers a, whose prompt was sent; b is prompted after it and stays open.
    expect(await reply(key, '确认', 'alice')).toMatchObject({ id: 'a', verdict: { outcome: 'confirmed' } });
    expect(await outputOf(server.ingressUrl, first)).toBe('deployed');
    expect(prompted(key, 'b')).toBe(true);
    expect(await decision(key, 'b')).toBeNull();
    expect(await reply(key, '确认', 'alice')).toMatchObject({ id: 'b', verdict: { outcome: 'confirmed' } });
    expect(await outputOf(server.ingressUrl, second)).toBe('deployed');
  });

  it('refuses a reply from someone who may not answer, and the wait stays open', async () => {
    const key = session();
    const invocation = await deploy({ sessionKey: key, id: 'c1', requester: 'alice', env: 'prod' });
    await waitForPrompt(key, 'c1');
    const refused = await reply(key, '确认', 'mallory');
    // Not an answer of someone who may answer: it goes on to the agent, and decides nothing.
    expect(refused).toEqual({ consumed: false, id: 'c1', verdict: { kind: 'pass', code: 'not_allowed' } });
    expect(await decision(key, 'c1')).toBeNull();
    expect(await watchers(key, 'c1')).toHaveLength(1); // the tool still waits
    await reply(key, '确认', 'alice');
    expect(await outputOf(server.ingressUrl, invocation)).toBe('deployed');
  });

  it('times the confirmation out at its deadline (a durable timer)', async () => {
    const key = session();
    const invocation = await deploy({
      sessionKey: key,
      id: 'c1',
      requester: 'alice',
      env: 'prod',
      timeoutMs: 300,
    });
    await waitFor('the deadline to decide c1', 20_000, async () => (await decision(key, 'c1')) !== null);
    expect(await decision(key, 'c1')).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    expect(await outputOf(server.ingressUrl, invocation)).toBe('timed_out');
    expect(outbox).toContainEqual(
      expect.objectContaining({ type: 'decided', sessionKey: key, notice: 'timedOut' }),
    );
  });

  it('counts a reply delivered twice once', async () => {
    const key = session();
    await deploy({ sessionKey: key, id: 'a', requester: 'alice', env: 'one' });
    await waitForPrompt(key, 'a');
    const second = await deploy({ sessionKey: key, id: 'b', requester: 'alice', env: 'two' });
    await waitFor('b to be queued', 20_000, async () => {
      const state = (await server.state('confirmations', key, 'session')) as { queue: string[] } | undefined;
      return state?.queue.includes('b') === true;
    });
    expect(await reply(key, '确认', 'alice', 'evt-1')).toMatchObject({
      id: 'a',
      verdict: { outcome: 'confirmed' },
    });
    await waitForPrompt(key, 'b');
    // The platform delivers the same event again: it counted already, so it does not answer b.
    expect(await reply(key, '确认', 'alice', 'evt-1')).toEqual({ consumed: true, code: 'stale_reply' });
    expect(await decision(key, 'b')).toBeNull();
    await reply(key, '确认', 'alice', 'evt-2');
    expect(await outputOf(server.ingressUrl, second)).toBe('deployed');
  });

  it('decides nothing when the waiter’s awakeable is resolved or rejected straight through the ingress', async () => {
    const key = session();
    const invocation = await deploy({ sessionKey: key, id: 'c1', requester: 'alice', env: 'prod' });
    await waitForPrompt(key, 'c1');
    let awakeable = '';
    await waitFor('the tool to register its wait', 20_000, async () => {
      awakeable = (await watchers(key, 'c1'))[0] ?? '';
      return awakeable !== '';
    });
    const forged = { outcome: 'confirmed' };
    const resolved = await http(
      'POST',
      `${server.ingressUrl}/restate/awakeables/${awakeable}/resolve`,
      forged,
    );
    expect(resolved.status).toBeLessThan(300);
    let again = '';
    await waitFor('the tool to read the decision back and wait again', 20_000, async () => {
      again = (await watchers(key, 'c1')).find((id) => id !== awakeable) ?? '';
      return again !== '';
    });
    const rejected = await http('POST', `${server.ingressUrl}/restate/awakeables/${again}/reject`, 'forged');
    expect(rejected.status).toBeLessThan(300);
    await waitFor('the tool to wait a third time', 20_000, async () => {
      const ids = await watchers(key, 'c1');
      return ids.some((id) => id !== awakeable && id !== again);
    });
    expect(await decision(key, 'c1')).toBeNull();
    expect(await use({ sessionKey: key, id: 'c1', requester: 'alice', env: 'prod' })).toEqual({
      ok: false,
      code: 'unknown_decision',
    });
    await reply(key, '确认', 'alice');
    expect(await outputOf(server.ingressUrl, invocation)).toBe('deployed');
  });
});

describe('what a confirmations object refuses', () => {
  const request = (key: string, body: unknown): Promise<RequestConfirmationResult> =>
    call(server.ingressUrl, `confirmations/${encodeURIComponent(key)}/request`, body);
  const valid = (key: string) => ({
    sessionKey: key,
    action: { name: 'deploy', args: {} },
    summary: 'Deploy',
    requester: 'alice',
  });

  it('refuses a duplicate id, another session’s request and a request the confirm checks refuse', async () => {
    const key = session();
    expect(await request(key, { id: 'c1', request: valid(key) })).toEqual({
      ok: true,
      id: 'c1',
      state: 'prompted',
    });
    expect(await request(key, { id: 'c1', request: valid(key) })).toMatchObject({
      ok: false,
      code: 'duplicate_confirmation',
    });
    expect(await request(key, { id: 'c2', request: valid('elsewhere') })).toMatchObject({
      ok: false,
      code: 'session_mismatch',
    });
    expect(await request(key, { id: 'c3', request: { ...valid(key), summary: '' } })).toMatchObject({
      ok: false,
      code: 'invalid_request',
    });
  });

  it('confirms by a card click and refuses a click on no confirmation', async () => {
    const key = session();
    await request(key, { id: 'c1', request: valid(key) });
    const click = (id: string) =>
      call<InboundResult>(server.ingressUrl, `confirmations/${encodeURIComponent(key)}/click`, {
        id,
        choice: 'confirm',
        senderId: 'alice',
      });
    expect(await click('nope')).toEqual({ consumed: true, code: 'unknown_confirmation' });
    expect(await click('c1')).toMatchObject({ consumed: true, id: 'c1', verdict: { outcome: 'confirmed' } });
    expect(await decision(key, 'c1')).toMatchObject({ outcome: 'confirmed', reason: 'card' });
    const late = await request(key, { id: 'c1', request: valid(key) });
    expect(late).toMatchObject({ ok: false, code: 'duplicate_confirmation' });
  });

  it('keeps its timer, watch and authorize handlers private to the cluster', async () => {
    const key = encodeURIComponent(session());
    for (const handler of ['windowOver', 'watch', 'authorize']) {
      const answer = await http('POST', `${server.ingressUrl}/confirmations/${key}/${handler}`, { id: 'c1' });
      expect(answer.status, handler).toBeGreaterThanOrEqual(400);
    }
  });
});
