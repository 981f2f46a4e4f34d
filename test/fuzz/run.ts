import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { runCampaign } from './campaign.ts';
import { formatReport, passed } from './report.ts';

// `npm run fuzz`: the full run (docs/fuzzing.md). A million generated inputs by default, against
// `ppx serve` on a fresh database; exits 1 when any answer or the run as a whole failed.
//
//   npm run fuzz -- [--inputs N] [--seed S] [--store sqlite|postgres] [--only I] [--concurrency C]

const USAGE =
  'usage: npm run fuzz -- [--inputs N (default 1000000)] [--seed S (default random)] [--store sqlite|postgres] [--only INDEX] [--concurrency C]';

function main(): Promise<number> | number {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values } = args;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const inputs = Number(values.inputs ?? 1_000_000);
  const seed = values.seed !== undefined ? Number(values.seed) : randomInt(2 ** 31);
  const store = values.store ?? 'sqlite';
  const only = values.only !== undefined ? Number(values.only) : undefined;
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : undefined;
  if (!Number.isInteger(inputs) || inputs < 1) return usage('--inputs is a whole number, 1 or more');
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
    return usage('--seed is a whole number in [0, 2^32)');
  if (store !== 'sqlite' && store !== 'postgres') return usage('--store is sqlite or postgres');
  if (only !== undefined && (!Number.isInteger(only) || only < 0)) return usage('--only is an input index');
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    return usage('--concurrency is a whole number, 1 or more');
  }
  console.log(
    `fuzzing ${only !== undefined ? `input ${only}` : `${inputs} inputs`} with seed ${seed} (store: ${store})`,
  );
  return runCampaign({
    inputs,
    seed,
    store,
    ...(only !== undefined ? { only } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    progress: (line) => console.log(line),
  }).then((report) => {
    console.log(formatReport(report));
    return passed(report) ? 0 : 1;
  });
}

function parse() {
  return parseArgs({
    options: {
      inputs: { type: 'string' },
      seed: { type: 'string' },
      store: { type: 'string' },
      only: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
}

function usage(problem: string): number {
  console.error(`${problem}\n${USAGE}`);
  return 2;
}

process.exitCode = await main();
