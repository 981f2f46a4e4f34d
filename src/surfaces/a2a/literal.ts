import { parseInput } from '../../model/validate.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { type RpcError, rpcErrorOf } from './rpc-errors.ts';
import type { Skill } from './skills.ts';

// The binding's literal form (bindings/a2a.md "Message shape", WIRE-NOTES §6): the JSON-RPC
// `method` is the skill and `params` its input, exactly as the HTTP API takes it; the `result`
// is the PPX response body, a failure the JSON-RPC error with the PPX code in `data.error`. For
// agents that read the binding literally; no task is made.

export async function literalCall(
  deps: Deps,
  caller: GrantCaller,
  skill: Skill,
  id: string | number | null,
  params: unknown,
): Promise<RpcError | { jsonrpc: '2.0'; id: string | number | null; result: unknown }> {
  const input = parseInput(skill.operation.input, params ?? {}, `the params of ${skill.id}`);
  if (!input.ok) return rpcErrorOf(id, input.error);
  const result = await skill.operation.run(deps, caller, input.value);
  return result.ok ? { jsonrpc: '2.0', id, result: result.value } : rpcErrorOf(id, result.error);
}
