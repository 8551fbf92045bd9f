// The Web API methods the stand-in answers (https://api.slack.com/web), in Slack's shapes: HTTP 200
// with `{ ok: true, … }`, or `{ ok: false, error }` for what Slack refuses.
import type { Clock } from '@parley/core';
import type { LoopbackAnswer } from '@parley/testing/loopback';
import { type PostedMessage, slackTs } from './standin-payloads.js';

/** Slack truncates past 40 000 characters; the stand-in refuses instead (`msg_too_long`). */
const MAX_TEXT_LENGTH = 40_000;

type Params = Readonly<Record<string, unknown>>;
type Reshape = (answer: Record<string, unknown>) => Record<string, unknown>;

export interface WebApiContext {
  readonly clock: Clock;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  /** The URL of a new Socket Mode connection. */
  openConnection(): string;
  takeReshape(): Reshape | undefined;
  nextSeq(): number;
  readonly posts: Map<string, PostedMessage>;
  lastCard: PostedMessage | undefined;
}

export type WebApiMethod = (params: Params, context: WebApiContext) => LoopbackAnswer;

const ok = (fields: Record<string, unknown>): LoopbackAnswer => ({ json: { ok: true, ...fields } });
export const refuse = (error: string): LoopbackAnswer => ({ json: { ok: false, error } });
const keyOf = (channel: unknown, ts: unknown): string => `${String(channel)}/${String(ts)}`;

/** Methods for the bot token, by name. */
export const BOT_METHODS: Readonly<Record<string, WebApiMethod>> = {
  'auth.test': (_params, context) =>
    ok({
      url: 'https://ops.slack.com/',
      team: 'Ops',
      user: 'shopbot',
      team_id: context.teamId,
      user_id: context.botUserId,
      bot_id: context.botId,
    }),
  'chat.postMessage'(params, context) {
    const invalid = invalidMessage(params);
    if (invalid !== undefined) return invalid;
    const channel = String(params['channel']);
    const ts = slackTs(context.clock.now(), context.nextSeq());
    const thread = typeof params['thread_ts'] === 'string' ? params['thread_ts'] : undefined;
    const post: PostedMessage = {
      channel,
      ts,
      text: params['text'],
      ...(params['blocks'] === undefined ? {} : { blocks: params['blocks'] }),
      ...(thread === undefined ? {} : { threadTs: thread }),
    };
    context.posts.set(keyOf(channel, ts), post);
    if (post.blocks !== undefined) context.lastCard = post;
    const answer = { ok: true, channel, ts, message: messageOf(post, context) };
    const reshape = context.takeReshape();
    return { json: reshape === undefined ? answer : reshape(answer) };
  },
  'chat.update'(params, context) {
    const original = context.posts.get(keyOf(params['channel'], params['ts']));
    if (original === undefined) return refuse('message_not_found');
    const invalid = invalidMessage({ ...params, channel: original.channel });
    if (invalid !== undefined) return invalid;
    const { blocks: _blocks, ...kept } = original;
    const post: PostedMessage = {
      ...kept,
      text: params['text'],
      ...(params['blocks'] === undefined ? {} : { blocks: params['blocks'] }),
    };
    context.posts.set(keyOf(post.channel, post.ts), post);
    if (context.lastCard?.ts === post.ts) context.lastCard = post.blocks === undefined ? undefined : post;
    return ok({ channel: post.channel, ts: post.ts, text: post.text, message: messageOf(post, context) });
  },
};

/** Methods for the app-level token (Socket Mode). */
export const APP_METHODS: Readonly<Record<string, WebApiMethod>> = {
  'apps.connections.open': (_params, context) => ok({ url: context.openConnection() }),
};

function invalidMessage(params: Params): LoopbackAnswer | undefined {
  const channel = params['channel'];
  if (typeof channel !== 'string' || channel === '') return refuse('channel_not_found');
  const text = params['text'];
  if ((typeof text !== 'string' || text.trim() === '') && params['blocks'] === undefined)
    return refuse('no_text');
  if (typeof text === 'string' && text.length > MAX_TEXT_LENGTH) return refuse('msg_too_long');
  return undefined;
}

function messageOf(post: PostedMessage, context: WebApiContext): Record<string, unknown> {
  return {
    type: 'message',
    user: context.botUserId,
    bot_id: context.botId,
    text: post.text,
    ts: post.ts,
    ...(post.blocks === undefined ? {} : { blocks: post.blocks }),
    ...(post.threadTs === undefined ? {} : { thread_ts: post.threadTs }),
  };
}
