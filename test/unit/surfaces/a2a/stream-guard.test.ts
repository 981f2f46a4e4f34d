import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamResponse, TaskState } from '@a2a-js/sdk';
import type { GrantCaller } from '../../../../src/operations/callers/token-caller.ts';
import type { Deps } from '../../../../src/operations/deps.ts';
import { guarded } from '../../../../src/surfaces/a2a/stream-guard.ts';

// A task stream ends the moment its grant does (issue 13, item 3): the grant is read again before
// each event, and a revoked one turns the next event into the task's final failed status, in the
// stream's own A2A version, and closes the source.

describe('the A2A stream guard', () => {
  const caller = { kind: 'grant', grant: { grant_id: 'ppx:grant:g1' } } as unknown as GrantCaller;
  function depsWith(statuses: string[]): Deps {
    let i = 0;
    return {
      clock: () => new Date('2026-12-01T12:00:00Z'),
      store: {
        getGrant: async () => ({
          grant_id: 'ppx:grant:g1',
          status: statuses[Math.min(i++, statuses.length - 1)],
        }),
      },
    } as unknown as Deps;
  }
  const envelope = (state: string) => ({
    jsonrpc: '2.0',
    id: 5,
    result: { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } } },
  });

  it('passes events while the grant is active, then ends with a failed status once it is revoked', async () => {
    let closed = false;
    async function* source() {
      try {
        yield envelope('TASK_STATE_WORKING');
        yield envelope('TASK_STATE_WORKING');
        yield envelope('TASK_STATE_COMPLETED');
      } finally {
        closed = true;
      }
    }
    const out: unknown[] = [];
    for await (const e of guarded(depsWith(['active', 'revoked']), caller, source(), '1.0')) out.push(e);
    assert.equal(out.length, 2);
    assert.deepEqual(out[0], envelope('TASK_STATE_WORKING'));
    const last = out[1] as { id: number; result: unknown };
    assert.equal(last.id, 5);
    const parsed = StreamResponse.fromJSON(last.result);
    assert.equal(parsed.payload?.$case, 'statusUpdate');
    if (parsed.payload?.$case === 'statusUpdate') {
      assert.equal(parsed.payload.value.taskId, 't1');
      assert.equal(parsed.payload.value.status?.state, TaskState.TASK_STATE_FAILED);
      const part = parsed.payload.value.status?.message?.parts[0];
      assert.deepEqual(
        part?.content?.$case === 'data' ? part.content.value.error : undefined,
        'invalid_token',
      );
    }
    assert.ok(closed, 'the source stream is closed');
  });

  it('speaks 0.3 on a 0.3 stream: a final status-update with state "failed"', async () => {
    async function* source() {
      yield {
        jsonrpc: '2.0',
        id: 'a',
        result: { kind: 'task', id: 't2', contextId: 'c2', status: { state: 'working' } },
      };
    }
    const out: unknown[] = [];
    for await (const e of guarded(depsWith(['revoked']), caller, source(), '0.3')) out.push(e);
    const [only] = out;
    const result = (only as { result: Record<string, unknown> }).result;
    assert.equal(result.kind, 'status-update');
    assert.equal(result.taskId, 't2');
    assert.equal(result.final, true);
    assert.equal((result.status as { state: string }).state, 'failed');
  });
});
