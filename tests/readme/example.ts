// The example at the top of README.md, checked and run by tests/readme.test.ts: everything from
// the first import down is the README's code block, character for character.
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFakeChannel } from '@parley/testing';

const chat = createFakeChannel({ channel: 'tg' }); // stands in for your Telegram, Feishu… adapter
const bus = createMessageBus();
await bus.attach(chat);
const gate = createConfirmGate({ bus }); // from now on, answers to its prompts are its own

// The model wants a table dropped: ask the person who made the request, in the chat they used.
const action = { name: 'drop_table', args: { table: 'orders' } };
const ask = gate.request({ sessionKey: 'tg:ops', requester: 'alice', action, summary: 'DROP TABLE orders' });
await chat.waitForSent('DROP TABLE orders'); // the prompt: reply 确认 to run it, 取消 to cancel
await chat.say('ops', 'alice', '确认'); // consumed by the gate, never passed on to the agent
const decision = await ask;
const auth = await gate.authorize(decision, action); // confirmed, for this exact action, first use
console.log(decision.outcome, auth.ok); // confirmed true
