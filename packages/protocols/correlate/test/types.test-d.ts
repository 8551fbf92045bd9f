import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type Correlator,
  createCorrelator,
  defineProtocol,
  planApprovalProtocol,
  type Reply,
  type RequestPromise,
  type RequestOf,
  type ResponseOf,
  shutdownProtocol,
} from '../src/index.js';

describe('types', () => {
  it('infers a protocol name, request and response from its schemas', () => {
    const deploy = defineProtocol('deploy', {
      request: z.object({ service: z.string() }),
      response: z.object({ go: z.boolean() }),
      decide: (r) => ({ approve: r.go }),
    });
    expectTypeOf(deploy.name).toEqualTypeOf<'deploy'>();
    expectTypeOf<RequestOf<typeof deploy>>().toEqualTypeOf<{ service: string }>();
    expectTypeOf<ResponseOf<typeof deploy>>().toEqualTypeOf<{ go: boolean }>();
    expectTypeOf<RequestOf<typeof planApprovalProtocol>>().toHaveProperty('plan');
  });

  it('types the payload of a request and the response of its reply', () => {
    const lead: Correlator = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol, planApprovalProtocol],
      send: () => {},
    });
    const reply = lead.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'x' } });
    expectTypeOf(reply).toEqualTypeOf<RequestPromise<Reply<ResponseOf<typeof planApprovalProtocol>>>>();
    expectTypeOf(reply).toMatchTypeOf<Promise<Reply<ResponseOf<typeof planApprovalProtocol>>>>();
    expectTypeOf(reply.id).toEqualTypeOf<string>();
    // @ts-expect-error a plan-approval payload needs a plan
    void lead.request(planApprovalProtocol, { to: 'bob', payload: { reason: 'x' } });
    // @ts-expect-error the recipient is required
    void lead.request(shutdownProtocol, { payload: {} });
    // @ts-expect-error there is no such event
    lead.on('replied', () => {});
    lead.on('refused', (e) =>
      expectTypeOf(e.code).toEqualTypeOf<import('../src/index.js').CorrelateRefusalCode>(),
    );
  });
});
