// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// biome-ignore-all lint/correctness/noUnusedFunctionParameters: examples show signatures
// Every TSDoc @example of @parley/correlate, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { describe, it } from 'vitest';
import { isParleyError } from '@parley/core';
import {
  CORRELATE_ERROR_CODES,
  CorrelateError,
  type CorrelateErrorCode,
  type CorrelateMessage,
  type Correlator,
  type CorrelatorEvents,
  type CorrelatorOptions,
  type CorrelatorStats,
  createCorrelator,
  type Decision,
  DEFAULT_HUMAN_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_SETTLED,
  DEFAULT_MAX_TOTAL_MS,
  DEFAULT_RETAIN_SETTLED_MS,
  DEFAULT_TIMEOUT_MS,
  defineProtocol,
  type ListFilter,
  planApprovalProtocol,
  type ProgressMessage,
  type RequestProgressOptions,
  type Protocol,
  type ProtocolDefinition,
  type ReceiveResult,
  type CorrelateRefusal,
  CORRELATE_REFUSAL_CODES,
  type CorrelateRefusalCode,
  type Reply,
  type ReplyCheck,
  type ReplyTarget,
  type RequestStep,
  requestStep,
  parseMessage,
  checkReply,
  judgeResponse,
  settledRefusal,
  type ResponseVerdict,
  type RequestMessage,
  type RequestOf,
  type RequestOptions,
  type ResponseMessage,
  type ResponseOf,
  shutdownProtocol,
  type TrackedRequest,
  type WaitForOptions,
} from '../src/index.js';
import { z } from 'zod';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/correlate examples', () => {
  it('createCorrelator (correlator.ts)', async () => {
    const wire: CorrelateMessage[] = [];
    const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: (m) => wire.push(m) });
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      send: (m) => wire.push(m),
    });

    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'work is done' } });
    await alice.receive(wire.shift());
    alice.respond(reply.id, { approve: true }); // the request_id both sides know it by
    await lead.receive(wire.shift());
    log((await reply).state);
    expectPrinted('approved');
    lead.close();
    alice.close();
  });

  it('CORRELATE_ERROR_CODES (errors.ts)', async () => {
    log(CORRELATE_ERROR_CODES.includes('timeout'));
    expectPrinted('true');
  });

  it('CorrelateErrorCode (errors.ts)', async () => {
    const code: CorrelateErrorCode = 'too_many_pending';
  });

  it('CorrelateError (errors.ts)', async () => {
    const err = new CorrelateError('timeout', 'No reply within 30000 ms', { details: { requestId: 'r1' } });
    log(isParleyError(err, 'timeout'), err.details.requestId);
    expectPrinted('true r1');
  });

  it('CORRELATE_REFUSAL_CODES (errors.ts)', async () => {
    log(CORRELATE_REFUSAL_CODES.includes('wrong_sender'));
    expectPrinted('true');
  });

  it('CorrelateRefusalCode (errors.ts)', async () => {
    const code: CorrelateRefusalCode = 'late';
  });

  it('RequestMessage (messages.ts)', async () => {
    const message: RequestMessage = {
      kind: 'request',
      request_id: 'abc',
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: { reason: 'work is done' },
      deadline_at: 1_700_000_030_000,
    };
  });

  it('ResponseMessage (messages.ts)', async () => {
    const message: ResponseMessage = {
      kind: 'response',
      request_id: 'abc',
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
      response: { approve: true },
    };
  });

  it('ProgressMessage (messages.ts)', async () => {
    const message: ProgressMessage = {
      kind: 'progress',
      request_id: 'xyz',
      protocol: 'plan_approval',
      from: 'lead',
      to: 'bob',
      note: 'asked the owner',
      waiting_on_human: true,
    };
  });

  it('CorrelateMessage (messages.ts)', async () => {
    function describe(message: CorrelateMessage): string {
      return `${message.kind} ${message.request_id} ${message.from} → ${message.to}`;
    }
  });

  it('Decision (protocol.ts)', async () => {
    const decision: Decision = { approve: false, reason: 'still writing config.json' };
  });

  it('ProtocolDefinition (protocol.ts)', async () => {
    const definition: ProtocolDefinition<z.ZodString, z.ZodBoolean> = {
      request: z.string(),
      response: z.boolean(),
      decide: (ok) => ({ approve: ok }),
      timeoutMs: 10_000,
    };
  });

  it('Protocol (protocol.ts)', async () => {
    const protocol: Protocol<'shutdown', { reason?: string }, { approve: boolean; reason?: string }> =
      shutdownProtocol;
    log(protocol.name);
    expectPrinted('shutdown');
  });

  it('RequestOf (protocol.ts)', async () => {
    const payload: RequestOf<typeof planApprovalProtocol> = { plan: 'Refactor the auth module' };
  });

  it('ResponseOf (protocol.ts)', async () => {
    const response: ResponseOf<typeof shutdownProtocol> = { approve: true };
  });

  it('defineProtocol (protocol.ts)', async () => {
    const deploy = defineProtocol('deploy', {
      request: z.object({ service: z.string(), version: z.string() }),
      response: z.object({ go: z.boolean(), note: z.string().optional() }),
      decide: (r) => ({ approve: r.go, ...(r.note === undefined ? {} : { reason: r.note }) }),
      timeoutMs: 60_000,
    });
    log(deploy.name, deploy.decide({ go: false, note: 'freeze' }));
    expectPrinted("deploy { approve: false, reason: 'freeze' }");
  });

  it('shutdownProtocol (protocol.ts)', async () => {
    log(shutdownProtocol.name, shutdownProtocol.decide({ approve: false, reason: 'mid-write' }));
    // shutdown { approve: false, reason: 'mid-write' }
  });

  it('planApprovalProtocol (protocol.ts)', async () => {
    log(planApprovalProtocol.name, planApprovalProtocol.decide({ approve: true }));
    expectPrinted('plan_approval { approve: true }');
  });

  it('DEFAULT_TIMEOUT_MS (types.ts)', async () => {
    log(DEFAULT_TIMEOUT_MS);
    expectPrinted('30000');
  });

  it('DEFAULT_HUMAN_TIMEOUT_MS (types.ts)', async () => {
    log(DEFAULT_HUMAN_TIMEOUT_MS);
    expectPrinted('1800000');
  });

  it('DEFAULT_MAX_TOTAL_MS (types.ts)', async () => {
    log(DEFAULT_MAX_TOTAL_MS);
    expectPrinted('86400000');
  });

  it('DEFAULT_MAX_PENDING_REQUESTS (types.ts)', async () => {
    log(DEFAULT_MAX_PENDING_REQUESTS);
    expectPrinted('10000');
  });

  it('DEFAULT_RETAIN_SETTLED_MS (types.ts)', async () => {
    log(DEFAULT_RETAIN_SETTLED_MS);
    expectPrinted('300000');
  });

  it('DEFAULT_MAX_SETTLED (types.ts)', async () => {
    log(DEFAULT_MAX_SETTLED);
    expectPrinted('256');
  });

  it('TrackedRequest (types.ts)', async () => {
    function line(r: TrackedRequest): string {
      return `${r.id} ${r.protocol} ${r.from} → ${r.to}: ${r.state}`;
    }
  });

  it('Reply (types.ts)', async () => {
    function report(reply: Reply<{ approve: boolean }>): string {
      return reply.approved ? `${reply.from} agreed` : `${reply.from} refused: ${reply.reason ?? ''}`;
    }
  });

  it('RequestOptions (types.ts)', async () => {
    const options: RequestOptions<{ plan: string }> = {
      to: 'lead',
      payload: { plan: 'Refactor auth' },
      waitingOnHuman: true,
    };
  });

  it('WaitForOptions (types.ts)', async () => {
    const options: WaitForOptions = { signal: AbortSignal.timeout(5_000) };
  });

  it('RequestProgressOptions (types.ts)', async () => {
    const options: RequestProgressOptions = { note: 'asking the owner', waitingOnHuman: true };
  });

  it('ListFilter (types.ts)', async () => {
    const filter: ListFilter = { role: 'requester', protocol: 'shutdown', state: 'pending' };
  });

  it('ReceiveResult (types.ts)', async () => {
    function describe(result: ReceiveResult): string {
      return result.ok ? `${result.kind} ${result.requestId}` : `refused: ${result.code}`;
    }
  });

  it('CorrelateRefusal (types.ts)', async () => {
    const refusal: CorrelateRefusal = {
      ok: false,
      code: 'unknown_request',
      requestId: 'nope',
      message: 'No request "nope"',
    };
  });

  it('CorrelatorEvents (types.ts)', async () => {
    const onRefused = (event: CorrelatorEvents['refused']): void => log(event.code);
  });

  it('CorrelatorStats (types.ts)', async () => {
    const stats: CorrelatorStats = { pending: 1, incoming: 0, settled: 3, refused: { late: 1 } };
  });

  it('CorrelatorOptions (types.ts)', async () => {
    const options: CorrelatorOptions = {
      self: 'lead',
      protocols: [shutdownProtocol],
      send: (m) => log(m.kind),
    };
  });

  it('RequestPromise (types.ts)', async () => {
    const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {} });
    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    log(lead.get(reply.id)?.state);
    expectPrinted('pending');
    lead.close();
    await reply.catch(() => {}); // rejected with closed
  });

  it('Correlator (types.ts)', async () => {
    const lead: Correlator = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
    });
    log(lead.stats().pending);
    expectPrinted('0');
    lead.close();
  });

  it('parseMessage (messages.ts)', async () => {
    log(
      parseMessage({ kind: 'response', request_id: 'r1', protocol: 'shutdown', from: 'alice', to: 'lead' }),
    );
    expectPrinted('a response needs a "response"');
  });

  it('RequestStep (request-step.ts)', async () => {
    const step: RequestStep = { event: 'expire', to: 'expired' };
  });

  it('requestStep (request-step.ts)', async () => {
    log(requestStep('pending', 1_000, 'approve', 999));
    expectPrinted("{ event: 'approve', to: 'approved' }");
    log(requestStep('pending', 1_000, 'approve', 1_000));
    expectPrinted("{ event: 'expire', to: 'expired' }");
    log(requestStep('approved', 1_000, 'reject', 10));
    expectPrinted('undefined');
  });

  it('ReplyTarget (reply-rules.ts)', async () => {
    const target: ReplyTarget = {
      id: 'r1',
      to: 'alice',
      protocol: 'shutdown',
      state: 'pending',
      deadlineAt: 30_000,
    };
  });

  it('ReplyCheck (reply-rules.ts)', async () => {
    const check: ReplyCheck = {
      ok: false,
      code: 'late',
      message: 'Request "r1" expired before this response arrived',
      expire: true,
      state: 'expired',
    };
  });

  it('checkReply (reply-rules.ts)', async () => {
    const target = {
      id: 'r1',
      to: 'alice',
      protocol: 'shutdown',
      state: 'pending',
      deadlineAt: 30_000,
    } as const;
    const reply = { kind: 'response', request_id: 'r1', protocol: 'shutdown', from: 'mallory' } as const;
    log(checkReply(target, reply, 1_000).ok);
    expectPrinted('false');
    log(checkReply(target, { ...reply, from: 'alice' }, 1_000).ok);
    expectPrinted('true');
    log(checkReply(target, { ...reply, from: 'alice' }, 30_000).ok);
    expectPrinted('false');
  });

  it('settledRefusal (reply-rules.ts)', async () => {
    log(settledRefusal('r1', 'approved', 'response').code);
    expectPrinted('duplicate');
  });

  it('ResponseVerdict (reply-rules.ts)', async () => {
    const verdict: ResponseVerdict = { ok: true, event: 'approve', response: { approve: true } };
  });

  it('judgeResponse (reply-rules.ts)', async () => {
    log(await judgeResponse(shutdownProtocol, 'r1', { approve: true }));
    expectPrinted("{ ok: true, event: 'approve', response: { approve: true } }");
    log((await judgeResponse(shutdownProtocol, 'r1', 'yes')).ok);
    expectPrinted('false');
  });
});
