// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/slack, compiled and run; each console.log is an assertion here.
import { createMessageBus } from '@parley/bus';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManualClock, isParleyError } from '@parley/core';
import { App, LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_ADAPTER_ERROR_CODES,
  type SlackAdapter,
  SlackAdapterError,
  type SlackAdapterErrorCode,
  type SlackAdapterEvents,
  type SlackAdapterOptions,
  type SlackSkipReason,
} from '../src/index.js';
import {
  createSlackStandIn,
  type SlackClickOptions,
  type SlackDeliverOptions,
  type SlackDelivery,
  type SlackEventBody,
  type SlackEventCallback,
  type SlackInteraction,
  type SlackMessageBody,
  type SlackMessageOptions,
  type SlackStandIn,
  type SlackStandInCall,
  type SlackStandInFailure,
  type SlackStandInOptions,
} from '../src/testing.js';

describe('errors.ts examples', () => {
  it('SLACK_ADAPTER_ERROR_CODES', () => {
    expect(SLACK_ADAPTER_ERROR_CODES.includes('rate_limited')).toBe(true);
  });

  it('SlackAdapterErrorCode', () => {
    const code: SlackAdapterErrorCode = 'button_value_too_long';
    expect(SLACK_ADAPTER_ERROR_CODES).toContain(code);
  });

  it('SlackAdapterError', () => {
    const error = new SlackAdapterError('rate_limited', 'ratelimited', { details: { retryAfterMs: 3000 } });
    expect([isParleyError(error, 'rate_limited'), error.details.retryAfterMs]).toEqual([true, 3000]);
  });
});

describe('types.ts examples', () => {
  it('SlackAdapterOptions', () => {
    const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
    const options: SlackAdapterOptions = { client: app.client, channel: 'slack' };
    expect(options.channel).toBe('slack');
  });

  it('SlackSkipReason', () => {
    const reason: SlackSkipReason = 'no_sender';
    expect(reason).toBe('no_sender');
  });

  it('SlackAdapterEvents', () => {
    const seen: string[] = [];
    const log = (event: SlackAdapterEvents['skipped']) => seen.push(event.reason);
    log({ reason: 'unsupported', type: 'event_callback/reaction_added' });
    expect(seen).toEqual(['unsupported']);
  });

  it('SlackAdapter', () => {
    const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
    const slack: SlackAdapter = createSlackAdapter({ client: app.client });
    const bus = createMessageBus();
    const off = bus.intercept(slack.handoff()); // last: what nothing consumed goes on to the app's listeners
    expect(typeof off).toBe('function');
  });
});

describe('adapter.ts examples', () => {
  it('createSlackAdapter', async () => {
    const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
    const slack = createSlackAdapter({ client: app.client });
    app.use(slack.middleware); // before the app's listeners
    const bus = createMessageBus();
    const detach = await bus.attach(slack);
    expect(slack.channel).toBe('slack');
    detach();
  });
});

describe('standin-types.ts examples', () => {
  it('SlackEventBody', () => {
    const body: SlackEventBody = {
      type: 'event_callback',
      event_id: 'Ev01',
      event: { type: 'message', text: 'hi' },
    };
    expect(body.type).toBe('event_callback');
  });

  it('SlackInteraction', () => {
    const kind = (payload: SlackInteraction): string => payload.type;
    expect(kind({ type: 'block_actions' })).toBe('block_actions');
  });

  it('SlackEventCallback', () => {
    const kindOf = (body: SlackEventCallback): unknown => body.event['type'];
    expect(
      kindOf({ type: 'event_callback', event_id: 'Ev1', event_time: 1, event: { type: 'message' } }),
    ).toBe('message');
  });

  it('SlackMessageBody', () => {
    const tsOf = (body: SlackMessageBody): string => body.event.ts;
    expect(typeof tsOf).toBe('function');
  });

  it('SlackMessageOptions', () => {
    const inThread: SlackMessageOptions = { threadTs: '1767225600.000100', user: 'U0BOB00001' };
    expect(inThread.threadTs).toBe('1767225600.000100');
  });

  it('SlackClickOptions', () => {
    const asBob: SlackClickOptions = { user: 'U0BOB00001' };
    expect(asBob.user).toBe('U0BOB00001');
  });

  it('SlackStandInPayloads', async () => {
    const slack = await createSlackStandIn();
    const body = slack.payloads.message('hi');
    expect([body.type, body.event.type, body.event.text]).toEqual(['event_callback', 'message', 'hi']);
    await slack.close();
  });

  it('SlackDelivery', () => {
    const acknowledged = (delivery: SlackDelivery): boolean => delivery.ok;
    expect(acknowledged({ ok: true, status: 200 })).toBe(true);
  });

  it('SlackDeliverOptions', () => {
    const redelivery: SlackDeliverOptions = { retry: 1 };
    expect(redelivery.retry).toBe(1);
  });

  it('SlackStandInCall', () => {
    const textOf = (call: SlackStandInCall): unknown => call.params['text'];
    expect(textOf({ method: 'chat.postMessage', params: { text: 'hi' } })).toBe('hi');
  });

  it('SlackStandInFailure', () => {
    const slowDown: SlackStandInFailure = { status: 429, retryAfter: 30 };
    expect(slowDown.status).toBe(429);
  });

  it('SlackStandInOptions', () => {
    const options: SlackStandInOptions = {
      clock: createManualClock({ now: 1_767_225_600_000 }),
      channel: 'C0OPS00001',
    };
    expect(options.channel).toBe('C0OPS00001');
  });

  it('SlackStandIn', async () => {
    const slack: SlackStandIn = await createSlackStandIn();
    expect([slack.url.endsWith('/api/'), slack.sent.length]).toEqual([true, 0]);
    await slack.close();
  });
});

describe('standin.ts examples', () => {
  it('createSlackStandIn', async () => {
    const slack = await createSlackStandIn();
    const app = new App({
      token: slack.token,
      signingSecret: slack.signingSecret,
      processBeforeResponse: true, // answer Slack once the handlers ran
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.url },
    });
    app.message('hello', async ({ say }) => {
      await say('hi there');
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    slack.setRequestUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
    await slack.message('hello');
    expect(slack.sent.map((call) => call.params['text'])).toEqual(['hi there']);
    await app.stop();
    await slack.close();
  });
});
