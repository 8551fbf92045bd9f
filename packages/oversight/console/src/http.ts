/**
 * What the console reads of a request: Node's `IncomingMessage` (and Express's, Fastify's raw or
 * Hono's Node request) has it.
 *
 * @example
 * ```ts
 * import type { ConsoleRequest } from '@parley/console';
 *
 * const req: ConsoleRequest = { method: 'GET', url: '/confirmations?format=json', headers: { authorization: 'Bearer t' } };
 * ```
 */
export interface ConsoleRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * What the console writes of a response: Node's `ServerResponse` has it.
 *
 * @example
 * ```ts
 * import type { ConsoleResponse } from '@parley/console';
 *
 * const captured: { status?: number; body?: string } = {};
 * const res: ConsoleResponse = {
 *   statusCode: 200,
 *   setHeader: () => res,
 *   end(body?: string) {
 *     captured.status = res.statusCode;
 *     captured.body = body;
 *     return res;
 *   },
 * };
 * ```
 */
export interface ConsoleResponse {
  statusCode: number;
  setHeader(name: string, value: string | number): unknown;
  end(body?: string): unknown;
}
