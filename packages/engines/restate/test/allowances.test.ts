// Standing allowances on a real server: an "always allow" answer grants one for the session's
// action name and approver policy, @parley/confirm's rules say what it covers, and it ends with its window.
import type { AuthorizeResult, ConfirmDecision } from '@parley/confirm';
import * as restateSdk from '@restatedev/restate-sdk';
import { describe, expect, it } from 'vitest';
import {
  type ConfirmationsHandlers,
  type ConfirmOutbound,
  defineConfirmations,
  type InboundResult,
  type RequestConfirmationResult,
} from '../src/index.js';
import { call, onRestate } from './endpoint.js';
import { waitFor } from './server.js';

const outbox: ConfirmOutbound[] = [];
const allowing = defineConfirmations({
  name: 'allowing',
  send: async (out) => {
    outbox.push(out);
    return true;
  },
  rules: { standingAllowanceMs: 4_000 },
});
/** A tool of the cluster that uses a decision for an action (`authorize` is cluster only). */
const tool = restateSdk.service({
  name: 'allowTool',
  handlers: {
    use: async (
      ctx: restateSdk.Context,
      input: { key: string; id: string; action: { name: string; args: Record<string, string> } },
    ): Promise<AuthorizeResult> =>
      ctx
        .objectClient<ConfirmationsHandlers>({ name: allowing.name }, input.key)
        .authorize({ id: input.id, action: input.action }),
  },
});
const restate = onRestate([allowing, tool]);

let n = 0;
const session = (): string => `chat:${process.pid}:allow${n++}`;
const path = (key: string, handler: string): string => `allowing/${encodeURIComponent(key)}/${handler}`;
const request = (
  key: string,
  id: string,
  action: { name: string; args: Record<string, string> },
  requester = 'alice',
): Promise<RequestConfirmationResult> =>
  call(restate.server.ingressUrl, path(key, 'request'), {
    id,
    request: { sessionKey: key, action, summary: `${action.name} ${id}`, requester },
  });
const reply = (key: string, text: string, senderId = 'alice'): Promise<InboundResult> =>
  call(restate.server.ingressUrl, path(key, 'reply'), { text, senderId });
const decision = (key: string, id: string): Promise<ConfirmDecision | null> =>
  call(restate.server.ingressUrl, path(key, 'decision'), id);
const deploy = (env: string) => ({ name: 'deploy', args: { env } });

describe('standing allowances', () => {
  it('grants one by "always allow", confirms the same action name at once within its window, and then prompts again', async () => {
    const key = session();
    expect(await request(key, 'a1', deploy('prod'))).toMatchObject({ ok: true, state: 'prompted' });
    expect(outbox.at(-1)).toMatchObject({ type: 'prompt', record: { id: 'a1' } });
    expect(await reply(key, 'always allow')).toMatchObject({
      verdict: { kind: 'settle', outcome: 'confirmed' },
    });
    const granted = await decision(key, 'a1');
    expect(granted).toMatchObject({
      outcome: 'confirmed',
      decidedBy: 'alice',
      allowUntil: expect.any(Number),
    });

    // Another digest of the same action name, in the same session, under the same policy: covered.
    expect(await request(key, 'a2', deploy('staging'))).toEqual({ ok: true, id: 'a2', state: 'decided' });
    expect(await decision(key, 'a2')).toMatchObject({
      outcome: 'confirmed',
      reason: 'standing_allowance',
      decidedBy: 'alice',
    });
    expect(outbox.some((out) => out.type === 'prompt' && out.record.id === 'a2')).toBe(false);
    const use = (action: ReturnType<typeof deploy>): Promise<AuthorizeResult> =>
      call(restate.server.ingressUrl, 'allowTool/use', { key, id: 'a2', action });
    expect(await use(deploy('prod'))).toMatchObject({ ok: false, code: 'action_mismatch' });
    expect(await use(deploy('staging'))).toMatchObject({ ok: true });
    expect(await use(deploy('staging'))).toMatchObject({ ok: false, code: 'already_used' });

    // Past the window, the same request is prompted again.
    let tries = 0;
    await waitFor('the standing allowance to run out', 20_000, async () => {
      const id = `late${tries++}`;
      const answer = await request(key, id, deploy('prod'));
      if (answer.ok && answer.state === 'prompted') return true;
      expect(await decision(key, id)).toMatchObject({ reason: 'standing_allowance' });
      return false;
    });
    const last = await decision(key, `late${tries - 2}`);
    expect(last === null || (granted?.allowUntil ?? 0) > last.decidedAt).toBe(true);
  });

  it('covers neither another action name, nor another session, nor another requester’s request', async () => {
    const key = session();
    await request(key, 'b1', deploy('prod'));
    await reply(key, '总是允许');
    expect(await decision(key, 'b1')).toMatchObject({ outcome: 'confirmed', allowUntil: expect.any(Number) });
    expect(await request(key, 'b2', { name: 'drop_table', args: {} })).toMatchObject({ state: 'prompted' });
    expect(await reply(key, '取消')).toMatchObject({ verdict: { outcome: 'cancelled' } });
    expect(await request(key, 'b3', deploy('prod'), 'bob')).toMatchObject({ state: 'prompted' });
    expect(await reply(key, '取消', 'bob')).toMatchObject({ verdict: { outcome: 'cancelled' } });
    expect(await request(session(), 'b4', deploy('prod'))).toMatchObject({ state: 'prompted' });
  });
});
