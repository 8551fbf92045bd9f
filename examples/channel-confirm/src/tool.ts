// The `data_modify` tool: one call runs SQL on the shop database. Reads run at once; anything the
// classifier does not call a single clear read (DML, DDL, several statements…) needs a person's
// confirmation, which the tool gate asks through the @parley/confirm gate. Transaction and session
// control is refused outright by a policy, before anyone is asked.
import { classifySql, defineTool, type SqlClassification, type ToolExecuteContext, type ToolPolicy } from '@parley/tools';
import { z } from 'zod';
import { runSql, type SqlDatabase, type SqlResult } from './database.js';


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

const DataModifyArgs = z.object({
  sql: z
    .string()
    .trim()
    .min(1)
    .max(MAX_SQL_LENGTH)
    .describe('One PostgreSQL statement on the table "orders" (id, customer, status, amount)'),
});

/** `DML · DELETE FROM orders WHERE id = 3`: what a person is asked to confirm. */
export function summarizeSql(sql: string, classification: SqlClassification = classifySql(sql)): string {
  const count = classification.statements > 1 ? ` (${classification.statements} statements)` : '';
  return `${KIND_LABEL[classification.kind]}${count} · ${sql}`;
}

const KIND_LABEL: Readonly<Record<SqlClassification['kind'], string>> = {
  read: '查询 read',
  dml: '修改数据 DML',
  ddl: '修改结构 DDL',
  other: '其他 other',
};

/** Why `data_modify` may refuse a call (besides the gate's own refusals). */
export type DataModifyReason = 'session_control' | 'sql_error';

export const dataModify = defineTool({
  name: 'data_modify',
  title: 'Run SQL on the shop database',
  description:
    'Runs one SQL statement on the shop database (PostgreSQL). Reads run at once; INSERT, UPDATE, DELETE and DDL wait for the requester to reply 确认 in the chat.',
  args: DataModifyArgs,
  reasons: ['session_control', 'sql_error'],
  confirm: (args, context: AgentContext) =>
    context.requireConfirmation && classifySql(args.sql).needsConfirmation,
  summarize: (args) => summarizeSql(args.sql),
  async execute(args, { context, reject }: ToolExecuteContext<AgentContext, DataModifyReason>) {
    const classification = classifySql(args.sql);
    const mode = classification.needsConfirmation ? 'write' : 'read';
    try {
      return await runSql(context.db, args.sql, mode);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return reject('sql_error', `PostgreSQL refused the statement (nothing changed): ${message}`);
    }
  },
});

/** Refuses BEGIN / COMMIT / SET … before anyone is asked: each call is its own transaction. */
export const noSessionControl: ToolPolicy<AgentContext, 'data_modify'> = {
  name: 'no_session_control',
  tools: ['data_modify'],
  check({ args }) {
    const { sql } = args as { sql: string }; // the gate validated the args against DataModifyArgs
    const classification = classifySql(sql);
    if (!classification.controlsSession) return undefined;
    return {
      reason: `Transaction and session control (${classification.commands.join(', ')}) is not allowed: each data_modify call runs in a transaction of its own`,
      toolReason: 'session_control',
    };
  },
};

export type { SqlResult };
