import type { CampaignReport, Tally } from './campaign.ts';
import { mib, type WindowVerdict } from './memory.ts';

// The run's report as text: what was tried (per entry point, per generator, per credential), the
// statuses seen, the 5xx count, memory and time, the seed; then each failure with the command
// that makes its input again.

function statusSummary(statuses: ReadonlyMap<string, number>): string {
  return [...statuses.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
}

function table(title: string, rows: ReadonlyMap<string, Tally>): string[] {
  const entries = [...rows.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(title.length, ...entries.map(([k]) => k.length));
  const lines = [`${title.padEnd(width)}  ${'inputs'.padStart(8)}  ${'fail'.padStart(5)}  statuses`];
  for (const [key, t] of entries) {
    lines.push(
      `${key.padEnd(width)}  ${String(t.inputs).padStart(8)}  ${String(t.failures).padStart(5)}  ${statusSummary(t.statuses)}`,
    );
  }
  return lines;
}

export function formatReport(r: CampaignReport): string {
  const out: string[] = [];
  out.push(...table('entry point', r.byTarget), '');
  out.push(...table('generator', r.byGenerator), '');
  out.push(...table('credential', r.byCredential), '');
  if (r.jwtFlaws.size > 0) {
    out.push(
      `bad JWTs by flaw: ${[...r.jwtFlaws.entries()]
        .sort()
        .map(([k, n]) => `${k}:${n}`)
        .join(' ')}`,
      '',
    );
  }
  out.push(`statuses seen: ${statusSummary(r.statuses)}`);
  out.push(
    `inputs tried: ${r.tried} of ${r.planned} (${r.byTarget.size} entry points, ${r.byGenerator.size} generators)`,
  );
  out.push(`5xx answers: ${r.fiveXX}`);
  out.push(`failures: ${r.failureCount}`);
  if (r.memory) {
    const line = (what: string, m: WindowVerdict) =>
      `${what}: start ${mib(m.start)}, after warm-up ${mib(m.warm)}, end ${mib(m.end)}, peak ${mib(m.peak)} ` +
      `(allowed at the end: ${mib(m.allowed)}; trend after warm-up ${mib(m.slopePer100k)} per 100k inputs; ${m.samples} samples) ${m.ok ? 'bounded' : 'GROWING'}`;
    out.push(line('server RSS (median)', r.memory.rss));
    if (r.memory.heap) out.push(line('server live heap (smallest after full GCs)', r.memory.heap));
  }
  out.push(
    `duration: ${(r.durationMs / 1000).toFixed(1)} s (${Math.round(r.rate)} inputs/s), store: ${r.store}`,
  );
  if (r.cpu && r.tried > 0) {
    const per = (s: number) => `${((s * 1000) / r.tried).toFixed(2)} ms/input`;
    out.push(
      `CPU: server ${r.cpu.server.toFixed(1)} s (${per(r.cpu.server)}), fuzzer ${r.cpu.fuzzer.toFixed(1)} s (${per(r.cpu.fuzzer)})`,
    );
  }
  out.push(`seed: ${r.seed}`);
  for (const n of r.notFuzzed) out.push(`not fuzzed: ${n}`);
  for (const p of r.problems) out.push(`PROBLEM: ${p}`);
  // The first lines say what went wrong first; the last ones what ended a crashed server.
  const errors = r.serverErrors;
  const shown =
    errors.length <= 60
      ? errors
      : [...errors.slice(0, 20), `… ${errors.length - 50} lines …`, ...errors.slice(-30)];
  for (const line of shown) out.push(`server stderr: ${line}`);
  for (const f of r.failures) {
    out.push(
      '',
      `FAILURE input ${f.index} (${f.target}, generator ${f.generator}, credential ${f.credential}): ${f.problems.join('; ')}`,
      `  again: npm run fuzz -- --seed ${r.seed} --only ${f.index}`,
      `  request: ${f.request}`,
      `  answer:  ${f.response}`,
      ...(f.file ? [`  request bytes: ${f.file}`] : []),
    );
  }
  if (r.failureCount > r.failures.length)
    out.push(`(${r.failureCount - r.failures.length} more failures not shown)`);
  return out.join('\n');
}

/** The run passed: every answer judged fine, and nothing wrong with the run as a whole. */
export function passed(r: CampaignReport): boolean {
  return r.failureCount === 0 && r.problems.length === 0 && r.tried === r.planned;
}
