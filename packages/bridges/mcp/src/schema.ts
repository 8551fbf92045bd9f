import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { StandardSchemaV1 } from '@parley/core';

/**
 * A Standard Schema over a tool's JSON Schema (`inputSchema`), checked with the MCP SDK's own
 * validator, so a model's bad arguments are refused as `invalid_args` feedback before they reach
 * the server.
 */
export function jsonSchemaArgs(
  schema: JsonSchemaType,
  validator: { getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> },
): StandardSchemaV1<Record<string, unknown>> {
  let check: JsonSchemaValidator<Record<string, unknown>> | undefined;
  return {
    '~standard': {
      version: 1,
      vendor: 'parley-mcp',
      validate(value) {
        try {
          check ??= validator.getValidator<Record<string, unknown>>(schema);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return { issues: [{ message: `The tool's input schema cannot be used: ${message}` }] };
        }
        const result = check(value);
        return result.valid ? { value: result.data } : { issues: [{ message: result.errorMessage }] };
      },
    },
  };
}
