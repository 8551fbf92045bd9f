// A conformance subject over the FakeChannel: the bus-side behaviour every adapter must give,
// without a platform. `sameUser` breaks it (the other member's click carries the requester's id,
// as an adapter that mapped the wrong field would), so the cases can be seen to fail.
import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { type AdapterConformanceSubject, createFakeChannel } from '../src/index.js';

export function fakeSubject(options: { sameUser?: boolean } = {}): () => Promise<AdapterConformanceSubject> {
  return async () => {
    const clock = createManualClock({ now: Date.UTC(2026, 0, 1) });
    const channel = createFakeChannel({ channel: 'fake', clock });
    const sender = { requester: 'alice', other: options.sameUser === true ? 'alice' : 'mallory' } as const;
    let serial = 0;
    return {
      clock,
      createGate: (gateOptions) => createConfirmGate(gateOptions),
      close: async () => {},
      async start() {
        const bus = createMessageBus({ clock });
        bus.intercept(createHygieneInterceptor());
        await bus.attach(channel);
        const deliver = async (event: Parameters<typeof channel.deliver>[0]) => {
          await channel.deliver(event);
          return {
            redeliver: async () => {
              await channel.deliver(event);
            },
          };
        };
        return {
          bus,
          text: (user, text, at) =>
            deliver({ chatId: 'g1', senderId: sender[user], text, eventId: `t-${++serial}`, createdAt: at }),
          click(user, button, at) {
            const label = button === 'confirm' ? /确认/ : /取消/;
            const value = channel.buttons('g1').find((b) => label.test(b.label))?.value ?? null;
            return deliver({
              chatId: 'g1',
              senderId: sender[user],
              kind: 'card_action',
              action: value,
              eventId: `c-${++serial}`,
              createdAt: at,
            });
          },
          prompts: () => channel.sent.filter((m) => m.card !== undefined).length,
          stop: () => bus.close(),
        };
      },
    };
  };
}
