// The scripted "LLM": a deterministic function from the request the agent builds to what a model
// would answer (a tool call or a reply). It stands in for a real model client; the agent treats
// its output as untrusted proposals, exactly as it would treat a real model's.
import type { OpenAIChatTool, ToolBatchResult, ToolCallProposal } from '@parley/tools';
import type { SqlResult } from './database.js';

/** What the agent sends the model for one step of a turn. */
export interface ModelRequest {
  readonly turn: number;
  /** The user who wrote the message. */
  readonly from: string;
  readonly text: string;
  /** The tools offered, in OpenAI's function-calling format (from `toOpenAITools`). */
  readonly tools: readonly OpenAIChatTool[];
  /** Second step of a turn: what the tool gate ran and refused. */
  readonly toolResults?: ToolBatchResult;
}

export type ModelOutput =
  | { readonly type: 'reply'; readonly text: string }
  | { readonly type: 'tool_calls'; readonly calls: readonly ToolCallProposal[] };

const INTENTS: readonly { readonly match: RegExp; readonly sql: (m: RegExpMatchArray) => string }[] = [
  { match: /^sql\s*[:：]\s*([\s\S]+)$/i, sql: (m) => m[1] as string },
  {
    match: /(未完成|open).*订单|订单.*(未完成|open)|查.*订单/i,
    sql: () => "SELECT id, customer, amount FROM orders WHERE status = 'open' ORDER BY id",
  },
  { match: /删除\s*(\d+)\s*号订单/, sql: (m) => `DELETE FROM orders WHERE id = ${m[1]}` },
  {
    match: /把\s*(\d+)\s*号订单(?:标记为|改为|改成)\s*(open|paid|cancelled)/i,
    sql: (m) => `UPDATE orders SET status = '${(m[2] as string).toLowerCase()}' WHERE id = ${m[1]}`,
  },
  {
    match: /(customer|客户).*(索引|index)|(索引|index).*(customer|客户)/i,
    sql: () => 'CREATE INDEX orders_customer_idx ON orders (customer)',
  },
];

const HELP =
  '我可以查询或修改 orders 表，比如：「查一下未完成的订单」「删除 3 号订单」「把 2 号订单标记为 paid」「给 customer 列建索引」，或者直接「sql: …」。';

/** The scripted model: maps a user's words to a `data_modify` call, and tool results to a reply. */
export function shopAssistant(request: ModelRequest): ModelOutput {
  if (request.toolResults !== undefined) return { type: 'reply', text: describeResults(request.toolResults) };
  const text = request.text.trim();
  for (const intent of INTENTS) {
    const m = text.match(intent.match);
    if (m !== null) {
      const call = { id: `call_${request.turn}_1`, tool: 'data_modify', args: { sql: intent.sql(m) } };
      return { type: 'tool_calls', calls: [call] };
    }
  }
  if (/^(确认|確認|取消|yes|no|ok)$/i.test(text)) {
    return { type: 'reply', text: `收到 ${request.from} 的「${text}」。目前没有需要你来确认的操作。` };
  }
  return { type: 'reply', text: HELP };
}

/** Commands whose row count means something to the user. */
const ROW_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);

function describeResults(results: ToolBatchResult): string {
  const lines: string[] = [];
  for (const call of results.executed) {
    const result = call.result as SqlResult; // data_modify is the only tool and returns a SqlResult
    if (result.mode === 'read') {
      const rows = result.rows.map((row) =>
        Object.entries(row)
          .map(([key, value]) => `${key}=${String(value)}`)
          .join(' '),
      );
      lines.push(`查询到 ${result.rowCount} 行：${rows.join('；')}`);
    } else if (ROW_COMMANDS.has(result.command)) {
      lines.push(`已执行 ${result.command}，影响 ${result.rowCount} 行。`);
    } else {
      lines.push(`已执行 ${result.command}。`);
    }
  }
  for (const failed of results.feedback.failed_calls) {
    if (failed.code === 'confirmation_declined') lines.push('好的，操作已取消，数据没有改动。');
    else if (failed.code === 'confirmation_timed_out') lines.push('等待确认超时，操作已取消，数据没有改动。');
    else lines.push(`没有执行（${failed.code}）：${failed.reason}`);
  }
  return lines.join('\n');
}
