/**
 * The Node flags of the store's threads (checkpointer.ts, audit-mover.ts): this process's, as a
 * thread inherits them, but for `--input-type`, which a thread started from a file refuses
 * (ERR_INPUT_TYPE_NOT_ALLOWED). A process started with `node --input-type=module -e …` (a test's
 * child, a script) lost its threads: its WAL was checkpointed on the event loop again, and its
 * audit journal moved there. Undefined (inherit) otherwise: some of a process's flags (the test
 * runner's, say) are refused when given to a thread explicitly.
 */
export function workerExecArgv(): string[] | undefined {
  const flags = process.execArgv;
  if (!flags.some((flag) => flag.startsWith('--input-type'))) return undefined;
  return flags.filter((flag) => !flag.startsWith('--input-type'));
}
