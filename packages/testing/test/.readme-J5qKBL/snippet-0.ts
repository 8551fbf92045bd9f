import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFakeChannel, createFakeClock, expectOutbox } from '@parley/testing';

const clock = createFakeClock();
const bus = createMessageBus({ clock });
const channel = createFakeChannel({ channel: 'feishu', clock });
await bus.attach(channel);
const gate = createConfirmGate({ bus, clock });

const action = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };
const decision = gate.request({ sessionKey: 'feishu:g1', action, summary: action.args.sql, requester: 'alice' });
await channel.waitForSent('DELETE FROM orders', { chatId: 'g1' }); // the prompt card
await channel.chat('g1').clickButton('alice', /确认/); // a card click, as the platform would deliver it

console.log((await decision).outcome); // confirmed
expectOutbox(channel, { chatId: 'g1' }).toHaveButtons(['确认 Confirm', '取消 Cancel']);
clock.assertNoPendingTimers(); // the confirmation's timeout was cleared
