// The README's snippet, run as written (console.log lines asserted).
import { expect, it } from 'vitest';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '../src/index.js';

it('runs the README snippet', async () => {
  const printed: unknown[] = [];
  const wire: CorrelateMessage[] = [];
  const send = (m: CorrelateMessage) => void wire.push(m);
  const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send });
  const alice = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send });
  alice.on('request', ({ request }) => alice.respond(request.id, { approve: true, reason: 'wrapping up' }));

  const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'work is done' } });
  for (let m = wire.shift(); m; m = wire.shift()) await (m.to === 'lead' ? lead : alice).receive(m);
  printed.push((await reply).state);
  printed.push(lead.list({ protocol: 'shutdown' })[0]?.state);
  lead.close();
  alice.close();
  expect(printed).toEqual(['approved', 'approved']);
});
