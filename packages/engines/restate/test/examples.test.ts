// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/restate, compiled and run; a "// value" comment after console.log is asserted.
import { isParleyError } from '@parley/core';
import { shutdownProtocol } from '@parley/correlate';
import { createTopology } from '@parley/envelope';
import { definePipeline } from '@parley/pipeline';
import * as restate from '@restatedev/restate-sdk';
import { describe, it } from 'vitest';
import {
  awaitConfirmation,
  awaitRequest,
  type CancelResult,
  type ConfirmationsHandlers,
  type ConfirmationsObject,
  type ConfirmationsOptions,
  type ConfirmOutbound,
  defineConfirmations,
  type InboundClick,
  type InboundReply,
  type InboundResult,
  type NewConfirmationRequest,
  type RequestConfirmationResult,
  type Watched,
  type DecideResult,
  definePipelineWorkflow,
  type PipelineRunResult,
  type PipelineWorkflowHandlers,
  type PipelineWorkflowOptions,
  DEFAULT_MAX_WAKEUPS,
  DEFAULT_MAX_WATCHERS,
  defineRequests,
  type OpenRequest,
  type OpenResult,
  ParleyRestateError,
  RESTATE_ERROR_CODES,
  type RequestRecord,
  type RequestsHandlers,
  type RequestsObject,
  type RequestsOptions,
  type RestateErrorCode,
  type WatchResult,
} from '../src/index.js';
import {
  freeLoopbackPorts,
  type LocalRestateOptions,
  type LocalRestateServer,
  restateServerBinary,
  startRestateServer,
} from '../src/testing.js';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/restate examples', () => {
  it('RESTATE_ERROR_CODES (errors.ts)', async () => {
    log(RESTATE_ERROR_CODES.includes('invalid_argument'));
    expectPrinted('true');
  });

  it('RestateErrorCode (errors.ts)', async () => {
    const code: RestateErrorCode = 'invalid_argument';
  });

  it('ParleyRestateError (errors.ts)', async () => {
    const err = new ParleyRestateError('invalid_argument', 'name must be a non-empty string');
    log(isParleyError(err, 'invalid_argument'));
    expectPrinted('true');
  });

  it('RequestRecord (request-record.ts)', async () => {
    const record: RequestRecord = {
      id: 'r1',
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      state: 'approved',
      payload: { reason: 'done' },
      response: { approve: true },
      createdAt: 0,
      deadlineAt: 30_000,
      settledAt: 5,
    };
  });

  it('RequestsOptions (requests-types.ts)', async () => {
    const options: RequestsOptions<'requests'> = { name: 'requests', protocols: [shutdownProtocol] };
  });

  it('OpenRequest (requests-types.ts)', async () => {
    const open: OpenRequest = {
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: { reason: 'done' },
      timeoutMs: 60_000,
    };
  });

  it('OpenResult (requests-types.ts)', async () => {
    const result: OpenResult = {
      ok: false,
      code: 'duplicate_request',
      message: 'Request "r1" exists already',
    };
  });

  it('WatchResult (requests-types.ts)', async () => {
    const result: WatchResult = { ok: true, watching: true };
  });

  it('CancelResult (requests-types.ts)', async () => {
    const result: CancelResult = {
      ok: false,
      code: 'not_pending',
      message: 'Request "r1" is approved already',
    };
  });

  it('RequestsHandlers (requests-types.ts)', async () => {
    type Reply = RequestsHandlers['reply'];
  });

  it('RequestsObject (requests-types.ts)', async () => {
    function serviceName(object: RequestsObject<'requests'>): string {
      return object.name;
    }
  });

  it('defineRequests (requests.ts)', async () => {
    const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });
    log(requests.name);
    expectPrinted('requests');
  });

  it('awaitRequest (await-request.ts)', async () => {
    const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });
    const lead = restate.service({
      name: 'lead',
      handlers: {
        shutdown: async (ctx: restate.Context, id: string) => (await awaitRequest(ctx, requests, id)).state,
      },
    });
    log(lead.name);
    expectPrinted('lead');
  });

  it('DEFAULT_MAX_WATCHERS (requests-types.ts)', async () => {
    log(DEFAULT_MAX_WATCHERS);
    expectPrinted('64');
  });

  it('DEFAULT_MAX_WAKEUPS (await-request.ts)', async () => {
    log(DEFAULT_MAX_WAKEUPS);
    expectPrinted('16');
  });

  it('PipelineWorkflowOptions (pipeline-workflow-types.ts)', async () => {
    const topology = createTopology({ maxSpawnDepth: 1 });
    topology.register({ id: 'editor' });
    const options: PipelineWorkflowOptions<'brief'> = {
      name: 'brief',
      pipeline: definePipeline({
        name: 'brief',
        owner: 'editor',
        nodes: [{ id: 'draft', kind: 'task', agent: 'writer', timeoutMs: 60_000 }],
      }),
      work: () => ({ text: 'draft' }),
      topology, // each attempt of draft takes a slot under editor
    };
  });

  it('PipelineRunResult (pipeline-workflow-types.ts)', async () => {
    const result: PipelineRunResult = { status: 'succeeded', nodes: {} };
  });

  it('DecideResult (pipeline-workflow-types.ts)', async () => {
    const result: DecideResult = { ok: false, code: 'not_waiting', message: 'approve is done, not waiting' };
  });

  it('PipelineWorkflowHandlers (pipeline-workflow-types.ts)', async () => {
    type Decide = PipelineWorkflowHandlers['decide'];
  });

  it('definePipelineWorkflow (pipeline-workflow.ts)', async () => {
    const pipeline = definePipeline({
      name: 'brief',
      nodes: [
        { id: 'draft', kind: 'task', agent: 'writer' },
        { id: 'approve', kind: 'approval', dependsOn: ['draft'] },
      ],
    });
    const workflow = definePipelineWorkflow({ name: 'brief', pipeline, work: () => ({ text: 'draft' }) });
    log(workflow.name);
    expectPrinted('brief');
  });

  it('defineConfirmations (confirmations.ts)', async () => {
    const confirmations = defineConfirmations({
      name: 'confirmations',
      send: async (out) => {
        if (out.type === 'prompt') log(`to ${out.sessionKey}: ${out.record.summary}?`);
        return true;
      },
    });
    log(confirmations.name);
    expectPrinted('confirmations');
  });

  it('awaitConfirmation (await-confirmation.ts)', async () => {
    const confirmations = defineConfirmations({ name: 'confirmations', send: async () => true });
    const tool = restate.service({
      name: 'tool',
      handlers: {
        outcome: async (ctx: restate.Context, input: { sessionKey: string; id: string }) =>
          (await awaitConfirmation(ctx, confirmations, input.sessionKey, input.id)).outcome,
      },
    });
    log(tool.name);
    expectPrinted('tool');
  });

  it('ConfirmOutbound (confirmations-types.ts)', async () => {
    const out: ConfirmOutbound = { type: 'late', outcome: 'confirmed', sessionKey: 'chat:1', id: 'c1' };
    log(out.type);
    expectPrinted('late');
  });

  it('ConfirmationsOptions (confirmations-types.ts)', async () => {
    const options: ConfirmationsOptions = {
      name: 'confirmations',
      send: async () => true,
      timeoutMs: 60_000,
    };
    log(options.name);
    expectPrinted('confirmations');
  });

  it('NewConfirmationRequest (confirmations-types.ts)', async () => {
    const input: NewConfirmationRequest = {
      id: 'c1',
      request: {
        sessionKey: 'chat:1',
        action: { name: 'deploy', args: {} },
        summary: 'Deploy',
        requester: 'alice',
      },
    };
    log(input.id);
    expectPrinted('c1');
  });

  it('RequestConfirmationResult (confirmations-types.ts)', async () => {
    const result: RequestConfirmationResult = { ok: true, id: 'c1', state: 'prompted' };
    log(result.ok);
    expectPrinted('true');
  });

  it('InboundReply (confirmations-types.ts)', async () => {
    const reply: InboundReply = { text: 'yes', senderId: 'alice', eventId: 'evt-1' };
    log(reply.text);
    expectPrinted('yes');
  });

  it('InboundClick (confirmations-types.ts)', async () => {
    const click: InboundClick = { id: 'c1', choice: 'confirm', senderId: 'alice' };
    log(click.choice);
    expectPrinted('confirm');
  });

  it('InboundResult (confirmations-types.ts)', async () => {
    const result: InboundResult = { consumed: false };
    log(result.consumed);
    expectPrinted('false');
  });

  it('ConfirmationsHandlers (confirmations-types.ts)', async () => {
    type Authorize = ConfirmationsHandlers['authorize'];
  });

  it('ConfirmationsObject (confirmations-types.ts)', async () => {
    const objects: ConfirmationsObject<'confirmations'>[] = [];
    log(objects.length);
    expectPrinted('0');
  });

  it('Watched (watched.ts)', async () => {
    const registered: Watched<string> = { ok: true, watching: true };
    log(registered.ok);
    expectPrinted('true');
  });

  it('LocalRestateServer (testing.ts)', async () => {
    const ingressOf = (server: LocalRestateServer): string => server.ingressUrl;
  });

  it('LocalRestateOptions (testing.ts)', async () => {
    const options: LocalRestateOptions = { readyWithinMs: 60_000 };
  });

  it('restateServerBinary (testing.ts)', async () => {
    log(restateServerBinary().endsWith('restate-server'));
    expectPrinted('true');
  });

  it('startRestateServer (testing.ts)', async () => {
    const server = await startRestateServer();
    log(server.ingressUrl.startsWith('http://127.0.0.1:'));
    await server.stop();
    expectPrinted('true');
  });

  it('freeLoopbackPorts (testing.ts)', async () => {
    const [port] = await freeLoopbackPorts(1);
    log(typeof port);
    expectPrinted('number');
  });
});
