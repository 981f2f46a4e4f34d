import { readFileSync } from 'node:fs';

// Where a request's time goes, by stage, from a V8 .cpuprofile of the provider child
// (BENCH_PROFILE=1 npm run bench -- --profile small ...):
//   node bench/profile-stages.ts <file.cpuprofile> [CPU µs per request]
// Each sample goes to the stage of the innermost frame of its stack that belongs to one (so the
// SQLite statements an audit append runs are audit, and a JSON.stringify under the response is
// serialization), except that the store's own statements under an audit append or its group commit
// are audit; start-up (module loading, seeding) is left out. With the bench's CPU µs per
// request of the same run, the shares are also given in µs per request. The profile samples wall
// time on the main thread: a moment the process was preempted counts for the function it was in.

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: number[];
}
interface CpuProfile {
  readonly nodes: ProfileNode[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

const STAGES = [
  'HTTP parse/hono',
  'auth',
  'policy',
  'resolution',
  'store reads',
  'audit',
  'serialization',
  'metrics',
  'garbage collector',
  'other',
] as const;
type Stage = (typeof STAGES)[number];

/** The stage a frame's own code belongs to, or undefined when it only passes the call on. */
function stageOf({ functionName: fn, url }: CallFrame): Stage | 'start-up' | undefined {
  if (fn === '(garbage collector)') return 'garbage collector';
  if (
    url.startsWith('node:internal/modules/') ||
    /\/(seed|bench)\//.test(url) ||
    fn === 'compileSourceTextModule'
  )
    return 'start-up';
  if (/audit/.test(url)) return 'audit';
  if (fn === 'stringify' || (fn === 'parse' && url === '')) return 'serialization';
  if (/\/src\/surfaces\/shared\/(json|respond|body)/.test(url)) return 'serialization';
  if (/prom-client|\/operations\/provider\/metrics/.test(url)) return 'metrics';
  if (/\/src\/policy\//.test(url)) return 'policy';
  if (/\/src\/resolve\/|\/operations\/reads\//.test(url)) return 'resolution';
  if (
    /\/src\/auth\/|\/operations\/tokens\/|\/operations\/callers\/|node:internal\/crypto|npm:jose|\/jose\//.test(
      url,
    )
  )
    return 'auth';
  if (/\/src\/store\/|\/src\/cache\//.test(url)) return 'store reads';
  if (
    /node:_http|node:net|node:internal\/(streams|stream_base|http|url)|@hono|\/hono\/|\/src\/surfaces\//.test(
      url,
    ) ||
    fn === 'writev' ||
    fn === 'writeUtf8String' ||
    fn === 'writeBuffer'
  )
    return 'HTTP parse/hono';
  return undefined;
}

function stages(file: string): { ms: Map<Stage, number>; busy: number; startup: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ms = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  let busy = 0;
  let startup = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]!);
    if (!leaf || leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)')
      continue;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    let stage: Stage | 'start-up' = 'other';
    let startingUp = false;
    let found = false;
    let underAudit = false;
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const s = stageOf(byId.get(id)!.callFrame);
      if (s === 'start-up') startingUp = true;
      if (s === 'audit') underAudit = true;
      if (s !== undefined && !found) {
        stage = s;
        found = true;
      }
    }
    // The SQLite statements and the COMMIT of the audit group commit are audit, not store reads.
    if (underAudit && (stage === 'store reads' || stage === 'other')) stage = 'audit';
    if (startingUp || stage === 'start-up') {
      startup += dt;
      continue;
    }
    busy += dt;
    ms.set(stage, (ms.get(stage) ?? 0) + dt);
  }
  return { ms, busy, startup };
}

const [file, perRequest] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: node bench/profile-stages.ts <file.cpuprofile> [CPU µs/req]');
const { ms, busy, startup } = stages(file);
const us = perRequest === undefined ? undefined : Number(perRequest);
console.log(`${file}: ${busy.toFixed(0)} ms sampled busy (start-up, ${startup.toFixed(0)} ms, left out)`);
console.log(`| stage | share | ${us !== undefined ? 'CPU µs/req |' : ''}`);
console.log(`|---|---|${us !== undefined ? '---|' : ''}`);
for (const s of STAGES) {
  const share = (ms.get(s) ?? 0) / busy;
  console.log(
    `| ${s} | ${(100 * share).toFixed(1)} % |${us !== undefined ? ` ${(share * us).toFixed(0)} |` : ''}`,
  );
}
