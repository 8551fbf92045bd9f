import type { ToolPolicy } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import {
  createMcpClientGate,
  type McpResumed,
  mcpResumeHandlers,
  type McpResumeOptions,
} from '../src/index.js';
import { chat, type Chat, closedAfterEach, connect, fileServer, flush, SESSION } from './helpers.js';

const open = closedAfterEach();

interface State {
  frozen: boolean;
}

const freeze: ToolPolicy<State> = {
  name: 'freeze',
  tools: ['delete_file'],
  check: ({ context }) =>
    context.frozen ? { reason: 'Deletions are frozen', toolReason: 'frozen' } : undefined,
};

/**
 * A destructive call proposed through the bridge (its policies passed then), asked in chat, and
 * the process stopped before the answer: its confirm gate and client closed.
 */
async function proposedThenStopped(state: State = { frozen: false }) {
  const files = fileServer();
  const client = await connect(files.server);
  const talk = await chat();
  const bridge = await createMcpClientGate<State>({
    client,
    confirm: talk.confirm,
    clock: talk.clock,
    store: talk.store,
    policies: [freeze],
  });
  const prompted = talk.nextPrompt();
  const lost = bridge.callTool(
    { name: 'delete_file', arguments: { path: 'a.txt' } },
    { ...SESSION, context: state },
  );
  await prompted;
  await talk.confirm.close();
  await client.close();
  await lost;
  const fresh = await connect(files.server);
  open.push(fresh);
  return { files, talk, fresh, state };
}

/** The restarted process: a confirm gate with the resume handlers; `answer` says 确认 and waits. */
async function restarted(
  talk: Chat,
  handlers: (onResumed: NonNullable<McpResumeOptions['onResumed']>) => ReturnType<typeof mcpResumeHandlers>,
) {
  const resumed: McpResumed[] = [];
  let done: () => void = () => {};
  const handled = new Promise<void>((resolve) => {
    done = resolve;
  });
  const after = await talk.restart({
    resume: handlers((event) => {
      resumed.push(event);
      done();
    }),
  });
  open.push(after.confirm);
  return {
    after,
    resumed,
    answer: async (): Promise<void> => {
      await after.channel.say('g1', 'alice', '确认');
      await handled;
    },
  };
}

describe('mcpResumeHandlers (a restart between the proposal and the answer)', () => {
  it('runs the confirmed call exactly once on the restarted process', async () => {
    const { files, talk, fresh } = await proposedThenStopped();
    const tool = (await fresh.listTools()).tools[1] ?? 'delete_file';
    const { after, resumed, answer } = await restarted(talk, (onResumed) =>
      mcpResumeHandlers(fresh, [tool], { onResumed }),
    );
    await answer();
    await after.channel.say('g1', 'alice', '确认');
    await flush();
    expect(resumed).toMatchObject([
      { ran: true, result: { content: [{ type: 'text', text: 'deleted a.txt' }] } },
    ]);
    expect(files.calls).toEqual([{ tool: 'delete_file', args: { path: 'a.txt' } }]);
    const first = resumed[0] as McpResumed;
    expect(await after.confirm.authorize(first.decision.id, first.decision.action)).toEqual({
      ok: false,
      code: 'already_used',
    });
  });

  it('runs the policies again when the answer arrives: a call the state now forbids is refused as data', async () => {
    const { files, talk, fresh, state } = await proposedThenStopped();
    state.frozen = true; // the state changed while the person was thinking
    const { after, resumed, answer } = await restarted(talk, (onResumed) =>
      mcpResumeHandlers(fresh, ['delete_file'], {
        onResumed,
        policies: [freeze],
        context: () => state,
        clock: talk.clock,
      }),
    );
    await answer();
    expect(resumed).toMatchObject([
      {
        ran: false,
        code: 'not_allowed',
        result: {
          isError: true,
          content: [{ type: 'text', text: 'Deletions are frozen' }],
          structuredContent: {
            tool_feedback: { failed_calls: [{ code: 'not_allowed', tool_reason: 'frozen' }] },
          },
        },
      },
    ]);
    expect(files.calls).toEqual([]);
    // The refusal is final: the confirmation was used by this resume.
    const first = resumed[0] as McpResumed;
    expect(await after.confirm.authorize(first.decision.id, first.decision.action)).toEqual({
      ok: false,
      code: 'already_used',
    });
  });

  it('runs the call when the policies still allow it, and refuses a tool no longer allowed', async () => {
    const allowed = await proposedThenStopped();
    const ok = await restarted(allowed.talk, (onResumed) =>
      mcpResumeHandlers(allowed.fresh, ['delete_file'], {
        onResumed,
        policies: [freeze, { name: 'other', tools: ['touch'], check: () => false }],
        context: () => allowed.state,
      }),
    );
    await ok.answer();
    expect(ok.resumed.map((event) => (event.ran ? 'ran' : event.code))).toEqual(['ran']);

    const gone = await proposedThenStopped();
    const refused = await restarted(gone.talk, (onResumed) =>
      mcpResumeHandlers(gone.fresh, ['delete_file'], { onResumed, allow: () => ['read_file'] }),
    );
    await refused.answer();
    expect(refused.resumed).toMatchObject([
      {
        ran: false,
        code: 'unknown_tool',
        result: { content: [{ text: 'The tool "delete_file" may not be called now; allowed: read_file' }] },
      },
    ]);
    expect(gone.files.calls).toEqual([]);
  });

  it('refuses when a policy says false, and fails closed when checking throws', async () => {
    const plain = await proposedThenStopped();
    const no = await restarted(plain.talk, (onResumed) =>
      mcpResumeHandlers(plain.fresh, ['delete_file'], {
        onResumed,
        policies: [{ name: 'never', check: () => false }],
        allow: async () => [],
      }),
    );
    await no.answer();
    expect(no.resumed).toMatchObject([
      {
        ran: false,
        code: 'unknown_tool',
        result: { content: [{ text: expect.stringMatching(/allowed: none$/) }] },
      },
    ]);

    const again = await proposedThenStopped();
    const never = await restarted(again.talk, (onResumed) =>
      mcpResumeHandlers(again.fresh, ['delete_file'], {
        onResumed,
        policies: [{ name: 'never', check: () => false }],
      }),
    );
    await never.answer();
    expect(never.resumed).toMatchObject([
      { ran: false, code: 'not_allowed', result: { content: [{ text: 'Refused by the policy "never"' }] } },
    ]);

    const broken = await proposedThenStopped();
    const threw = await restarted(broken.talk, (onResumed) =>
      mcpResumeHandlers(broken.fresh, ['delete_file'], {
        onResumed,
        policies: [freeze],
        context: () => {
          throw new Error('state store down');
        },
      }),
    );
    await threw.answer();
    expect(threw.resumed).toMatchObject([{ ran: false, code: 'policy_error' }]);
    expect([plain, again, broken].map((run) => run.files.calls.length)).toEqual([0, 0, 0]);
  });

  it('reports a declined or already used confirmation without running it', async () => {
    const { files, talk, fresh } = await proposedThenStopped();
    const { resumed, answer, after } = await restarted(talk, (onResumed) => {
      const handlers = mcpResumeHandlers(fresh, ['delete_file'], {
        onResumed: (event) => void onResumed(event),
      });
      return {
        delete_file: async (decision, gate) => {
          await handlers.delete_file?.(decision, gate);
          await handlers.delete_file?.(decision, gate); // a second run of the same decision
        },
      };
    });
    await answer();
    await flush();
    expect(resumed.map((event) => (event.ran ? 'ran' : event.code))).toEqual(['ran', 'already_used']);
    expect(files.calls).toHaveLength(1);

    const declined = await mcpResumeHandlers(fresh, ['delete_file']).delete_file?.(
      { ...(resumed[0] as McpResumed).decision, outcome: 'cancelled' },
      after.confirm,
    );
    expect(declined).toBeUndefined();
    expect(files.calls).toHaveLength(1);
  });

  it('refuses a missing client', () => {
    expect(() => mcpResumeHandlers(undefined as never, [])).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
