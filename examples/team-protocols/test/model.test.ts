// Teammates are driven by a model through the protocol tools: these tests look at what the model
// was asked and what its calls did, through the same handshake the lead sees.
import { afterEach, describe, expect, it } from 'vitest';
import { type Setup, setup, traffic } from './helpers.js';

let current: Setup | undefined;
afterEach(() => current?.team.close());

describe('a teammate driven by its model', () => {
  it('hears a shutdown request as a notice and answers with shutdown_response on the same request_id', async () => {
    current = setup();
    const { team: t } = current;
    await t.requestShutdown('alice');
    await t.advance(5_000);
    const model = t.teammate('alice')?.model;
    expect(model?.requests[0]).toMatchObject({
      type: 'protocol_request',
      protocol: 'shutdown',
      request_id: 'req_1',
      from: 'lead',
      answer_with: 'shutdown_response',
    });
    expect(model?.calls[0]?.output?.tool_calls[0]).toMatchObject({
      tool: 'shutdown_response',
      args: { request_id: 'req_1', approve: true },
    });
    expect(traffic(t)).toEqual(['lead→alice request req_1', 'alice→lead response req_1']);
  });

  it('submits its plan with plan_submit and hears the rejection as a protocol_outcome', async () => {
    current = setup();
    const { team: t } = current;
    t.startWork('bob');
    await t.advance(3_000);
    const [request] = t.lead.list({ protocol: 'plan_approval' });
    expect(request?.from).toBe('bob');
    t.review(request?.id ?? '', false, 'too risky');
    await t.advance(3_000);
    const model = t.teammate('bob')?.model;
    expect(model?.requests.map((r) => r.type)).toEqual(['start', 'protocol_outcome']);
    expect(model?.requests[1]).toMatchObject({ state: 'rejected', reason: 'too risky' });
    expect(model?.calls[1]?.output?.tool_calls[0]?.tool).toBe('plan_submit');
  });

  it('gets a refused call back as tool_feedback, once, and sends nothing', async () => {
    current = setup();
    const { team: t, transcript } = current;
    const alice = t.teammate('alice');
    alice?.model.when(
      (prompt) => prompt.type === 'protocol_request',
      {
        reply: {
          tool_calls: [
            { id: 'c1', tool: 'shutdown_response', args: { request_id: 'req_404', approve: true } },
          ],
        },
      },
      2,
    );
    await t.requestShutdown('alice');
    await t.advance(5_000);
    expect(alice?.model.requests[1]).toMatchObject({
      request_id: 'req_1',
      tool_feedback: { failed_calls: [{ id: 'c1', tool_reason: 'unknown_request' }] },
    });
    expect(alice?.model.requests).toHaveLength(2);
    expect(transcript.lines.filter((l) => l.includes('cannot answer req_404: unknown_request'))).toHaveLength(
      2,
    );
    expect(traffic(t)).toEqual(['lead→alice request req_1']);
    expect(alice?.exited).toBe(false);
  });
});
