// The confirm gate's consent properties (packages/protocols/confirm/test: property, order model, consent-*)
// run against this host: random inbound sequences sent through a real Restate server's ingress to
// the confirmations object, each step checked against what the gate promises.
import { type AuthorizeResult, type ConfirmDecision, parseReply } from '@parley/confirm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundResult, RequestConfirmationResult } from '../src/index.js';
import { confirmations, toolService } from './confirm-services.js';
import { call, onRestate } from './endpoint.js';
import { waitFor } from './server.js';

const on = onRestate([confirmations, toolService()]);

let n = 0;
const session = (): string => `chat:consent-${process.pid}:${n++}`;
const at = (key: string, handler: string): string => `confirmations/${encodeURIComponent(key)}/${handler}`;
const decision = (key: string, id: string): Promise<ConfirmDecision | null> =>
  call(on.server.ingressUrl, at(key, 'decision'), id);
const ask = (key: string, id: string, env: string, timeoutMs?: number): Promise<RequestConfirmationResult> =>
  call(on.server.ingressUrl, at(key, 'request'), {
    id,
    request: {
      sessionKey: key,
      action: { name: 'deploy', args: { env } },
      summary: `Deploy to ${env}`,
      requester: 'alice',
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
  });
const use = (key: string, id: string, env: string): Promise<AuthorizeResult> =>
  call(on.server.ingressUrl, 'tool/use', { sessionKey: key, id, requester: 'alice', env });

const TEXTS = ['确认', 'yes', 'ok', '取消', 'no', 'maybe', 'уеѕ', '确认取消', '👍', ''];

interface Inbound {
  readonly kind: 'reply' | 'click';
  readonly sender: 'alice' | 'bob' | 'mallory';
  readonly bot: boolean;
  readonly text: string;
  readonly target: 'a' | 'b';
  readonly choice: 'confirm' | 'cancel';
  /** Sent again with the eventId of the reply this many steps back (0: a fresh event). */
  readonly again: number;
}

const inbound: fc.Arbitrary<Inbound> = fc.record({
  kind: fc.constantFrom('reply', 'click'),
  sender: fc.constantFrom('alice', 'bob', 'mallory'),
  bot: fc.boolean(),
  text: fc.constantFrom(...TEXTS),
  target: fc.constantFrom('a', 'b'),
  choice: fc.constantFrom('confirm', 'cancel'),
  again: fc.nat({ max: 2 }),
});

const may = (s: Inbound): boolean => s.sender === 'alice' && !s.bot;

describe('the confirm gate’s consent properties on a Restate server', () => {
  it('decides only by an allowed approver’s answer after the prompt, once, counts a redelivery once, and authorizes exactly the confirmed action once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(inbound, { maxLength: 3 }),
        fc.array(inbound, { minLength: 1, maxLength: 8 }),
        async (before, after) => {
          const key = session();
          // Answers that reach the session before any prompt's send began never answer it.
          for (const s of before) {
            const early = await call<InboundResult>(on.server.ingressUrl, at(key, 'reply'), {
              text: s.text,
              senderId: s.sender,
              bot: s.bot,
            });
            expect(early).toEqual({ consumed: false });
          }
          expect(await ask(key, 'a', 'one')).toMatchObject({ ok: true, state: 'prompted' });
          expect(await ask(key, 'b', 'two')).toMatchObject({ ok: true, state: 'queued' });
          expect(await decision(key, 'a')).toBeNull();

          const seen: { eventId: string; counted: boolean }[] = [];
          const decided: Record<'a' | 'b', ConfirmDecision | null> = { a: null, b: null };
          for (const [i, s] of after.entries()) {
            const prompted: 'a' | 'b' | undefined =
              decided.a === null ? 'a' : decided.b === null ? 'b' : undefined;
            const redelivered = s.again > 0 && s.kind === 'reply' ? seen[seen.length - s.again] : undefined;
            let result: InboundResult;
            if (s.kind === 'click') {
              result = await call(on.server.ingressUrl, at(key, 'click'), {
                id: s.target,
                choice: s.choice,
                senderId: s.sender,
                bot: s.bot,
              });
            } else {
              const eventId = redelivered?.eventId ?? `e${i}`;
              result = await call(on.server.ingressUrl, at(key, 'reply'), {
                text: s.text,
                senderId: s.sender,
                bot: s.bot,
                eventId,
              });
              if (redelivered === undefined) seen.push({ eventId, counted: false });
              const entry = seen.find((e) => e.eventId === eventId);
              const counts =
                result.verdict !== undefined && !['pass', 'ignore'].includes(result.verdict.kind);
              if (redelivered?.counted === true)
                expect(result).toEqual({ consumed: true, code: 'stale_reply' });
              if (entry !== undefined && counts) entry.counted = true;
            }
            const now = { a: await decision(key, 'a'), b: await decision(key, 'b') };
            for (const id of ['a', 'b'] as const) {
              if (decided[id] !== null) expect(now[id], `${id} stays decided once`).toEqual(decided[id]);
              const changed = decided[id] === null && now[id] !== null;
              if (!changed) continue;
              // Only the prompted confirmation is decided, only by an allowed approver's fresh answer to it.
              expect(id).toBe(prompted);
              expect(may(s)).toBe(true);
              expect(redelivered?.counted === true).toBe(false);
              if (s.kind === 'click') expect(s.target).toBe(id);
              expect(now[id]?.decidedBy).toBe('alice');
              // A reply the vocabulary does not know ends it too (the gate's `unrecognised: 'cancel'`), never confirmed.
              expect(s.kind === 'click' ? ['card'] : ['reply', 'unrecognised']).toContain(now[id]?.reason);
              if (now[id]?.outcome === 'confirmed')
                expect(s.kind === 'click' ? s.choice : parseReply(s.text)).toBe('confirm');
            }
            // An allowed approver's fresh "confirm" to the prompted confirmation decides it, confirmed.
            const confirmsNow =
              prompted !== undefined &&
              may(s) &&
              redelivered === undefined &&
              (s.kind === 'click'
                ? s.target === prompted && s.choice === 'confirm'
                : parseReply(s.text) === 'confirm');
            if (confirmsNow && prompted !== undefined) expect(now[prompted]?.outcome).toBe('confirmed');
            decided.a = now.a;
            decided.b = now.b;
          }
          // Binding: a decision authorizes exactly its own action, once.
          for (const [id, env] of [
            ['a', 'one'],
            ['b', 'two'],
          ] as const) {
            const confirmed = decided[id]?.outcome === 'confirmed';
            expect(await use(key, id, id === 'a' ? 'two' : 'one')).toMatchObject({
              ok: false,
              code: confirmed
                ? 'action_mismatch'
                : decided[id] === null
                  ? 'unknown_decision'
                  : 'not_confirmed',
            });
            const twice = await Promise.all([use(key, id, env), use(key, id, env)]);
            expect(twice.filter((r) => r.ok)).toHaveLength(confirmed ? 1 : 0);
          }
        },
      ),
      { numRuns: 25, seed: 33, endOnFailure: true },
    );
  });

  it('times a confirmation out at its deadline; an allowed answer after it decides nothing and authorizes nothing', async () => {
    const key = session();
    expect(await ask(key, 'c', 'prod', 300)).toMatchObject({ ok: true, state: 'prompted' });
    await waitFor('the durable timer to time out c', 20_000, async () => (await decision(key, 'c')) !== null);
    const timedOut = await decision(key, 'c');
    expect(timedOut).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    const late = await call<InboundResult>(on.server.ingressUrl, at(key, 'reply'), {
      text: '确认',
      senderId: 'alice',
    });
    expect(late.verdict?.kind === 'settle').toBe(false);
    const click = await call<InboundResult>(on.server.ingressUrl, at(key, 'click'), {
      id: 'c',
      choice: 'confirm',
      senderId: 'alice',
    });
    expect(click.verdict?.kind === 'settle').toBe(false);
    expect(await decision(key, 'c')).toEqual(timedOut);
    expect(await use(key, 'c', 'prod')).toEqual({ ok: false, code: 'not_confirmed' });
  });
});
