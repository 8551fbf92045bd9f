// The `data_modify` tool: one call runs SQL on the shop database. @parley/tools's `classifySql`
// decides the risk: one clear read runs at once; anything else (DML, DDL, several statements…)
// needs a person's confirmation when the chat's `safety.require_confirmation` is on, which the
// tool gate asks through the @parley/confirm gate. Transaction and session control is refused
// outright by a policy, before anyone is asked.
import { classifySql, definePolicy, defineTool, type SqlKind, type ToolCallProposal } from '@parley/tools';
import { z } from 'zod';
import { runSql, type SqlDatabase } from './database.js';

/** What every call of the agent's tools is processed with, read fresh at the start of each turn. */
export interface AgentContext {
  readonly db: SqlDatabase;
  /** The chat's `safety.require_confirmation` setting: off → writes run without a prompt. */
  readonly requireConfirmation: boolean;
}

/**
 * The confirmation prompt and card show at most 500 characters (@parley/confirm cuts the summary
 * there), so longer SQL is refused instead of asking a person about a text they cannot fully see.
 */
export const MAX_SQL_LENGTH = 400;

const KIND_LABEL: Readonly<Record<SqlKind, string>> = {
  read: '查询 read',
  dml: '修改数据 DML',
  ddl: '修改结构 DDL',
  other: '其他 other',
};

/** `修改数据 DML · DELETE FROM orders WHERE id = 3`: what a person is asked to confirm. */
export function summarizeSql(sql: string): string {
  const { kind, statements } = classifySql(sql);
  return `${KIND_LABEL[kind]}${statements > 1 ? ` (${statements} statements)` : ''} · ${sql}`;
}

export const dataModify = defineTool({
  name: 'data_modify',
  title: 'Run SQL on the shop database',
  description:
    'Runs one SQL statement on the shop database (PostgreSQL). Reads run at once; INSERT, UPDATE, DELETE and DDL wait for the requester to reply 确认 in the chat.',
  args: z.object({
    sql: z
      .string()
      .trim()
      .min(1)
      .max(MAX_SQL_LENGTH)
      .describe('One PostgreSQL statement on the table "orders" (id, customer, status, amount)'),
  }),
  reasons: ['session_control', 'sql_error'],
  confirm: (args, context: AgentContext) =>
    context.requireConfirmation && classifySql(args.sql).needsConfirmation,
  summarize: (args) => summarizeSql(args.sql),
  async execute(args, { context, reject }) {
    const mode = classifySql(args.sql).needsConfirmation ? 'write' : 'read';
    try {
      return await runSql(context.db, args.sql, mode);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return reject('sql_error', `PostgreSQL refused the statement (nothing changed): ${message}`);
    }
  },
});

/** Refuses BEGIN / COMMIT / SET … before anyone is asked: each call is its own transaction. */
export const noSessionControl = definePolicy(
  dataModify,
  ({ args }) => {
    const { controlsSession, commands } = classifySql(args.sql);
    if (!controlsSession) return undefined;
    const reason = `Transaction and session control (${commands.join(', ')}) is not allowed: each data_modify call runs in a transaction of its own`;
    return { reason, toolReason: 'session_control' };
  },
  { name: 'no_session_control' },
);

/** A proposed call for the transcript, with what the classifier and the setting make of it. */
export function describeCall(call: ToolCallProposal, context: AgentContext): string {
  const sql = (call.args as { sql?: unknown } | undefined)?.sql;
  if (typeof sql !== 'string') return `${call.tool} ${JSON.stringify(call.args)}`;
  const { kind, reason, needsConfirmation } = classifySql(sql);
  const verdict = !needsConfirmation
    ? 'runs at once'
    : context.requireConfirmation
      ? 'needs 确认'
      : 'safety.require_confirmation is off: runs at once';
  return `${call.tool}: ${sql}\n  (${kind.toUpperCase()}: ${reason} → ${verdict})`;
}
