// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/slack, compiled and run; each console.log is an assertion here.
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { App } from '@slack/bolt';
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
