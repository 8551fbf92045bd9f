import { afterEach, describe, expect, it } from 'vitest';
import { TOPIC_ROBOT } from 'dingtalk-stream';
import { toCardParams, toRobotMessage } from '../src/index.js';
import { ALICE, type Bot, DIRECT, GROUP, ROBOT_CODE, startQuiet, stopQuiet } from './harness.js';

afterEach(stopQuiet);
const started = startQuiet;

const base = { channel: 'dingtalk', chatId: GROUP, sessionKey: `dingtalk:${GROUP}`, createdAt: 0 };

describe('sending', () => {
  it('sends group text through groupMessages/send with one access token, renewed before it expires', async () => {
    const b = await started();
    expect(
      await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: '完成 Done.' }),
    ).toMatchObject({ status: 'sent' });
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: 'again' });
    expect(b.dingtalk.tokenRequests).toHaveLength(1);
    expect(b.dingtalk.tokenRequests[0]?.body).toEqual({
      appKey: 'dingq7xbm2kz4frsel0n',
      appSecret: b.dingtalk.clientSecret,
    });
    expect(b.dingtalk.sent[0]).toMatchObject({
      kind: 'group',
      conversationId: GROUP,
      text: '完成 Done.',
      path: '/v1.0/robot/groupMessages/send',
      token: b.dingtalk.accessToken,
      body: {
        robotCode: ROBOT_CODE,
        openConversationId: GROUP,
        msgKey: 'sampleText',
        msgParam: '{"content":"完成 Done."}',
      },
    });
    b.clock.advance(7200_000 - 5 * 60_000);
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: 'later' });
    expect(b.dingtalk.tokenRequests).toHaveLength(2);
  });

  it('answers a direct chat through oToMessages/batchSend to the user who wrote, and its cards in IM_ROBOT', async () => {
    const b = await started();
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('hi', { conversationType: '1' })).acked;
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: DIRECT, text: 'hello' });
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: DIRECT, text: 'pick', card: { buttons: [] } });
    expect(b.dingtalk.sent[0]).toMatchObject({
      path: '/v1.0/robot/oToMessages/batchSend',
      body: { robotCode: ROBOT_CODE, userIds: [ALICE], msgKey: 'sampleText' },
    });
    expect(b.dingtalk.sent[1]?.body).toMatchObject({
      openSpaceId: `dtv1.card//IM_ROBOT.${ALICE}`,
      imRobotOpenDeliverModel: { spaceType: 'IM_ROBOT', robotCode: ROBOT_CODE },
    });
  });

  it('sends a card as markdown when no card template is configured', async () => {
    const b = await started({ adapter: { cardTemplateId: undefined } });
    await b.bus.publishOutbound({
      channel: 'dingtalk',
      chatId: GROUP,
      text: '回复「确认」执行',
      card: { title: '需要确认', body: 'DELETE …', buttons: [{ label: '确认', value: 1 }] },
    });
    expect(b.dingtalk.sent[0]?.body).toMatchObject({
      msgKey: 'sampleMarkdown',
      msgParam: JSON.stringify({ title: '需要确认', text: '### 需要确认\n\n回复「确认」执行\n\nDELETE …' }),
    });
  });
});

describe('what it remembers', () => {
  it('names cards parley_… by default and forgets the oldest direct chat past maxRemembered', async () => {
    const b = await started({ adapter: { generateId: undefined, maxRemembered: 1 } });
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('a', { conversationType: '1' })).acked;
    await b.dingtalk.push(
      TOPIC_ROBOT,
      b.dingtalk.robotMessage('b', {
        conversationType: '1',
        conversationId: 'cidBob==',
        sender: 'bob',
      }),
    ).acked;
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: 'cidBob==', text: 'to bob' });
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: DIRECT, text: 'forgotten' });
    await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: 'card', card: { buttons: [] } });
    expect(b.dingtalk.sent.map((send) => send.path)).toEqual([
      '/v1.0/robot/oToMessages/batchSend',
      '/v1.0/robot/groupMessages/send',
      '/v1.0/card/instances/createAndDeliver',
    ]);
    expect(b.dingtalk.sent[2]?.body['outTrackId']).toMatch(/^parley_[\w-]{21}$/);
  });
});

describe('toRobotMessage and toCardParams', () => {
  it('titles a markdown card by the first line of its text, and leaves out a body the text holds', () => {
    expect(
      JSON.parse(
        toRobotMessage({ ...base, text: 'line one\nDELETE', card: { body: 'DELETE', buttons: [] } }).msgParam,
      ),
    ).toEqual({ title: 'line one', text: 'line one\nDELETE' });
  });

  it('puts each button value as JSON text in the card params', () => {
    const params = toCardParams({
      ...base,
      text: 't',
      card: {
        buttons: [
          { label: 'A', value: { x: [1] }, style: 'primary' },
          { label: 'B', value: 'b' },
        ],
      },
    });
    expect(params).toEqual({
      title: '',
      text: 't',
      body: '',
      buttons:
        '[{"label":"A","style":"primary","value":"{\\"x\\":[1]}"},{"label":"B","style":"default","value":"\\"b\\""}]',
    });
    expect(toCardParams({ ...base, text: 'no card' }).buttons).toBe('[]');
  });
});

describe('send failures', () => {
  async function failure(b: Bot): Promise<{ code: string; details: Record<string, unknown> }> {
    const result = await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: 'x' });
    expect(result.status).toBe('rejected');
    const error = (result as { error?: { code: string; details: Record<string, unknown> } }).error;
    return { code: error?.code ?? '', details: { ...error?.details } };
  }

  it('rejects rate_limited on HTTP 429 and on a QpsLimit code', async () => {
    const b = await started();
    b.dingtalk.failNext(
      { status: 429, body: { code: 'Throttling', message: 'too many requests' } },
      {
        status: 403,
        body: {
          code: 'Forbidden.AccessDenied.QpsLimitForAppkeyAndApi',
          message: 'qps limit',
          requestid: 'r-9',
        },
      },
    );
    expect(await failure(b)).toEqual({
      code: 'rate_limited',
      details: {
        operation: 'robot.groupMessages.send',
        status: 429,
        platformCode: 'Throttling',
        platformMessage: 'too many requests',
      },
    });
    expect(await failure(b)).toMatchObject({
      code: 'rate_limited',
      details: { status: 403, requestId: 'r-9' },
    });
  });

  it('rejects send_failed with DingTalk’s code, for an error status and for a code in a 200', async () => {
    const b = await started();
    b.dingtalk.failNext(
      {
        status: 400,
        body: { code: 'invalidParameter.openConversationId', message: 'robot not in the group' },
      },
      { status: 200, body: { code: 'resource.not.found' } },
      { status: 502, body: '<html>Bad Gateway</html>', raw: true },
    );
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { status: 400, platformCode: 'invalidParameter.openConversationId' },
    });
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { status: 200, platformCode: 'resource.not.found' },
    });
    expect(await failure(b)).toEqual({
      code: 'send_failed',
      details: { operation: 'robot.groupMessages.send', status: 502 },
    });
  });

  it('rejects send_failed when the access token is refused or missing, or DingTalk cannot be reached', async () => {
    const b = await started();
    b.dingtalk.failToken({ status: 400, body: { code: 'invalidClientId', message: 'bad app key' } });
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { operation: 'oauth2.accessToken', platformCode: 'invalidClientId' },
    });
    b.dingtalk.failToken({ status: 200, body: { expireIn: 7200 } });
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { operation: 'oauth2.accessToken' },
    });
    await b.close();
    await b.dingtalk.close();
    const result = await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: 'x' });
    expect(result).toMatchObject({ status: 'rejected', code: 'closed' });
  });
});
