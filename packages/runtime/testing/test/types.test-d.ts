import type { ChannelAdapter } from '@parley/bus';
import type { AttemptRequest, GenerateFn, Proposal, ToolGateLike } from '@parley/conflict';
import type { ManualClock, Store } from '@parley/core';
import type { CorrelateMessage, CorrelatorOptions } from '@parley/correlate';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createFakeChannel,
  createFakeClock,
  createFakePlatform,
  createFakeStore,
  createFakeToolGate,
  createRecordingTransport,
  createScriptedModel,
  type PlatformResult,
  type TestingErrorCode,
} from '../src/index.js';

describe('types', () => {
  it('fakes implement the real interfaces', () => {
    expectTypeOf(createFakeClock()).toMatchTypeOf<ManualClock>();
    expectTypeOf(createFakeChannel()).toMatchTypeOf<ChannelAdapter>();
    expectTypeOf(createFakeStore()).toMatchTypeOf<Store>();
    expectTypeOf(createFakeToolGate()).toMatchTypeOf<ToolGateLike>();
    expectTypeOf(createScriptedModel<Proposal, AttemptRequest<string>>()).toMatchTypeOf<
      GenerateFn<string, Proposal>
    >();
    expectTypeOf(createRecordingTransport<CorrelateMessage>().endpoint('a').send).toMatchTypeOf<
      CorrelatorOptions['send']
    >();
  });

  it('types the requests and outputs of a scripted model', async () => {
    const model = createScriptedModel<number, { q: string }>({ replies: [1] });
    expectTypeOf(model.requests).toEqualTypeOf<readonly { q: string }[]>();
    expectTypeOf(await model({ q: 'x' })).toEqualTypeOf<number>();
    // @ts-expect-error a reply must be the output type
    model.reply('one');
    // @ts-expect-error the request must be the request type
    void model(5);
  });

  it('types endpoint names and platform results', async () => {
    const wire = createRecordingTransport<string, 'lead' | 'alice'>({ endpoints: ['lead', 'alice'] });
    expectTypeOf(wire.endpoint('lead').name).toEqualTypeOf<'lead' | 'alice'>();
    // @ts-expect-error not an endpoint name
    wire.endpoint('bob');
    const platform = createFakePlatform();
    expectTypeOf(
      await platform.execute({ action: 'delete', targets: ['a'] }),
    ).toEqualTypeOf<PlatformResult>();
    // @ts-expect-error a partial step names the failing targets
    platform.enqueue({ outcome: 'partial' });
    expectTypeOf<'unscripted_call'>().toMatchTypeOf<TestingErrorCode>();
  });
});
