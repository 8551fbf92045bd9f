// The former names kept for one minor version are the very values of their new homes.
import { TOOL_FAILURE_STATUSES as CORE_TOOL_FAILURE_STATUSES } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { TOOL_FAILURE_STATUSES } from '../src/index.js';

describe('former names', () => {
  it("TOOL_FAILURE_STATUSES is core's", () => {
    expect(TOOL_FAILURE_STATUSES).toBe(CORE_TOOL_FAILURE_STATUSES);
  });
});
