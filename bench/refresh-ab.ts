import { join, resolve } from 'node:path';
import { startChild } from './children.ts';
import { benchArgs, runMain, withDeadline } from './harness.ts';
import { refreshTokenOf } from './oauth-refresh.ts';
import { load } from './refresh-load.ts';
import { markdown, spread } from './rounds.ts';

// `node bench/refresh-ab.ts --a <checkout> --b <checkout> [--connections 32 --rounds 8 --duration 3]`:
// token refresh rotations (bench:refresh's load) of two builds of the provider, both running at
// once, in ONE run: each round loads A, B, B, A (or B, A, A, B), and compares the CPU each spent
// a rotation (/proc) over the round. bench:refresh runs of two builds one after the other differ
// by more than most changes do on a shared machine (the same build ran at 250 and 450 µs a
// rotation within minutes); paired rounds see the same load. A checkout is a directory holding
// this repository at some commit (`git worktree add /tmp/x <commit>` with node_modules linked
// in). Prints each round and the median ratio, A over B.

runMain('refresh-ab', async () => {
  const args = benchArgs({ a: { type: 'string' }, b: { type: 'string' } });
  const roots = [args.extra['a'], args.extra['b']];
  if (roots.some((r) => typeof r !== 'string'))
    throw new Error('usage: refresh-ab.ts --a <checkout> --b <checkout>');
  const connections = args.connections === 50 ? 32 : args.connections;
  const rounds = await withDeadline('refresh-ab', args, async (children) => {
    const sides: { url: string; pid: number | undefined; chains: string[] }[] = [];
    for (const root of roots as string[]) {
      const child = startChild(root, [
        join(resolve(root), 'bench', 'provider-server.ts'),
        '--profile',
        'demo',
      ]);
      children.push(child);
      const info = await child.ready;
      console.error(`refresh-ab: making ${connections} token families on ${root}`);
      const chains: string[] = [];
      for (let i = 0; i < connections; i++)
        chains.push(await refreshTokenOf(info['url']!, info['subjectToken']!));
      sides.push({ url: info['url']!, pid: child.proc.pid, chains });
    }
    const micros = async (i: number, seconds: number) => {
      const side = sides[i]!;
      const l = await load(side.url, side.chains, seconds, side.pid);
      return l.cpuMicros / l.rotations;
    };
    if (args.warmup > 0) for (const i of [0, 1]) await micros(i, args.warmup);
    const out: { a: number; b: number }[] = [];
    for (let round = 0; round < args.rounds; round++) {
      const order = round % 2 === 0 ? [0, 1, 1, 0] : [1, 0, 0, 1];
      const spent: number[][] = [[], []];
      for (const i of order) spent[i]!.push(await micros(i, args.duration));
      const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
      out.push({ a: mean(spent[0]!), b: mean(spent[1]!) });
      console.error(`refresh-ab: round ${round + 1}/${args.rounds} done`);
    }
    return out;
  });
  console.log(
    markdown(
      ['round', 'A: CPU µs/rotation', 'B: CPU µs/rotation', 'A/B'],
      rounds.map((r, i) => [String(i + 1), r.a.toFixed(0), r.b.toFixed(0), (r.a / r.b).toFixed(3)]),
    ),
  );
  const ratios = rounds.map((r) => r.a / r.b);
  console.log(
    `A = ${roots[0]}, B = ${roots[1]}; A/B median ${spread(ratios).median.toFixed(3)} ` +
      `(${spread(ratios).min.toFixed(3)}–${spread(ratios).max.toFixed(3)}); A cheaper in ` +
      `${ratios.filter((x) => x < 1).length} of ${ratios.length} rounds`,
  );
});
