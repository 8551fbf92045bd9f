import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReply } from '../src/index.js';
import { ACTION, buttonToken, setup } from './helpers.js';

interface Step {
  readonly chat: 'g1' | 'g2';
  readonly user: 'alice' | 'bob' | 'bot';
  readonly text: string;
  readonly kind: 'message' | 'edit' | 'recall' | 'click';
  readonly button: 'confirm' | 'cancel' | 'forged';
  readonly fromSelf: boolean;
  readonly early: boolean;
}

const TEXTS = [
  '确认',
  'yes',
  'YES',
  'ok',
  '取消',
  'no',
  'maybe',
  'уеѕ',
  '确认取消',
  'yes please don’t',
  '👍',
  '',
  'always',
];

const step: fc.Arbitrary<Step> = fc.record({
  chat: fc.constantFrom('g1', 'g2'),
  user: fc.constantFrom('alice', 'bob', 'bot'),
  text: fc.oneof(fc.constantFrom(...TEXTS), fc.string({ maxLength: 6 })),
  kind: fc.constantFrom('message', 'edit', 'recall', 'click'),
  button: fc.constantFrom('confirm', 'cancel', 'forged'),
  fromSelf: fc.boolean(),
  early: fc.boolean(),
});

describe('property: no inbound sequence executes an action without a real confirmation', () => {
  it('confirms only after a recognised confirmation from the requester of the same session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.boolean(), async (steps, signed) => {
        const h = await setup(signed ? { secret: 'k' } : {});
        const { decision, id } = await h.ask();
        const promptedAt = h.clock.now();
        const tokens = {
          confirm: buttonToken(h.channel, 'confirm'),
          cancel: buttonToken(h.channel, 'cancel'),
        };
        let qualifying = false;
        for (const s of steps) {
          const settled = h.decided.length > 0;
          const valid = s.chat === 'g1' && s.user === 'alice' && !s.fromSelf && !settled;
          const extra = {
            fromSelf: s.fromSelf,
            senderIsBot: s.user === 'bot',
            ...(s.early ? { createdAt: promptedAt - 1 } : {}),
          };
          if (s.kind === 'click') {
            const token =
              s.button === 'forged' ? `${id}.confirm${signed ? '.AAAA' : '.x'}` : tokens[s.button];
            if (valid && s.button === 'confirm') qualifying = true;
            await h.channel.click(s.chat, s.user, { confirmation: token }, extra);
          } else {
            const verdict = parseReply(s.text);
            // A clock stamp never decides (order, not clocks): an `early` stamp counts like any other.
            if (valid && s.kind === 'message' && (verdict === 'confirm' || verdict === 'always'))
              qualifying = true;
            await h.channel.say(s.chat, s.user, s.text, { ...extra, kind: s.kind });
          }
          h.clock.advance(1);
        }
        h.clock.advance(300_000);
        const final = await decision;
        const authorized = await h.gate.authorize(final, ACTION);
        if (final.outcome === 'confirmed') {
          expect(qualifying).toBe(true);
          expect(final.decidedBy).toBe('alice');
        }
        expect(authorized.ok).toBe(final.outcome === 'confirmed');
        expect(h.decided).toHaveLength(1);
      }),
      { numRuns: 150 },
    );
  });
});
