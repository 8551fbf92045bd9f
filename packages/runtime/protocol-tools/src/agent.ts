import { CoreError, createEmitter, systemClock, type TimerHandle } from '@parley/core';
import type { ToolCallProposal } from '@parley/tools';
import type {
  ProtocolAgent,
  ProtocolAgentEvents,
  ProtocolAgentOptions,
  ProtocolAgentPrompt,
} from './agent-types.js';

const MAX_RETRIES = 5;

/**
 * Drives one party of request/response protocols with a model. Whatever the party hears — a
 * request waiting for its answer, the outcome of a request it made — reaches the model as the
 * protocol's notice; the model answers with tool calls, which go through the party's tool gate
 * (so only its side of each handshake can run, through its own correlator); and a turn whose calls
 * the gate or the correlator refused is asked once more with the `tool_feedback` (`maxRetries`).
 * Turns run one notice at a time after `delayMs` on the clock; `turn` events report what ran.
 *
 * @throws CoreError `invalid_argument` for a `maxRetries` that is not an integer in [0, 5];
 * `invalid_timeout` for a bad `delayMs`.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createCorrelator, type CorrelateMessage, shutdownProtocol } from '@parley/correlate';
 * import { createProtocolAgent, defineProtocolTools } from '@parley/protocol-tools';
 * import { createToolGate } from '@parley/tools';
 *
 * const clock = createManualClock();
 * const wire: CorrelateMessage[] = [];
 * const shutdown = defineProtocolTools(shutdownProtocol);
 * const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: (m) => void wire.push(m), clock });
 * const alice = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send: (m) => void wire.push(m), clock });
 * const agent = createProtocolAgent({
 *   correlator: alice,
 *   gate: createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] }),
 *   tools: [shutdown],
 *   clock,
 *   // The model reads the notice and answers through the tool named in it.
 *   model: async (prompt) => ({
 *     tool_calls: 'answer_with' in prompt ? [{ id: 'c1', tool: prompt.answer_with, args: { request_id: prompt.request_id, approve: true } }] : [],
 *   }),
 * });
 *
 * const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
 * await alice.receive(wire.shift());
 * clock.advance(0);
 * await agent.idle();
 * await lead.receive(wire.shift());
 * console.log((await reply).state); // approved
 * agent.close();
 * lead.close();
 * alice.close();
 * ```
 */
export function createProtocolAgent<TPrompt extends object = never>(
  options: ProtocolAgentOptions<TPrompt>,
): ProtocolAgent<TPrompt> {
  const { correlator, gate, model } = options;
  const clock = options.clock ?? systemClock;
  const delayMs = options.delayMs ?? 0;
  const maxRetries = options.maxRetries ?? 1;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES) {
    throw new CoreError('invalid_argument', `maxRetries must be an integer from 0 to ${MAX_RETRIES}`, {
      details: { maxRetries },
    });
  }
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new CoreError('invalid_timeout', 'delayMs must be a finite number ≥ 0', { details: { delayMs } });
  }
  type Prompt = ProtocolAgentPrompt<TPrompt>;
  const { peers } = options;
  const contextOf = () =>
    peers === undefined
      ? { correlator }
      : { correlator, peers: typeof peers === 'function' ? peers() : peers };
  const events = createEmitter<ProtocolAgentEvents<TPrompt>>();
  const stop = new AbortController();
  const running = new Set<Promise<void>>();
  const timers = new Set<TimerHandle>();
  let turns = 0;
  let closed = false;

  async function think(prompt: Prompt, retries: number): Promise<void> {
    let calls: readonly ToolCallProposal[];
    try {
      calls = (await model(prompt, { signal: stop.signal })).tool_calls;
    } catch (error) {
      if (!closed) events.emit('error', { prompt, error });
      return;
    }
    if (closed) return;
    const result = await gate.process(calls, { turn: ++turns, context: contextOf() });
    events.emit('turn', { prompt, calls, result });
    if (!closed && retries > 0 && result.feedback.failed_calls.length > 0) {
      await think({ ...prompt, tool_feedback: result.feedback }, retries - 1);
    }
  }

  function later(prompt: Prompt): void {
    if (closed) return;
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      const turn = think(prompt, maxRetries).finally(() => running.delete(turn));
      running.add(turn);
    }, delayMs);
    timers.add(timer);
  }

  const has = (name: string): boolean => gate.names.includes(name);
  const answers = new Map(options.tools.filter((t) => has(t.respond.name)).map((t) => [t.protocol.name, t]));
  const offs = [
    correlator.on('request', ({ request }) => {
      const tools = answers.get(request.protocol);
      if (tools !== undefined) later(tools.notice(request) as Prompt);
    }),
    // The outcome of a request it made: handlers run on the requester's side.
    ...options.tools
      .filter((t) => has(t.request.name))
      .map((t) => correlator.handle(t.protocol, (request) => later(t.notice(request) as Prompt))),
  ];

  return {
    get turns() {
      return turns;
    },
    prompt: (prompt) => later(prompt as Prompt),
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
    on: (event, listener) => events.on(event, listener),
    close() {
      if (closed) return;
      closed = true;
      stop.abort();
      for (const off of offs) off();
      for (const timer of timers) clock.clearTimeout(timer);
      timers.clear();
    },
  };
}
