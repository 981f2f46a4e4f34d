import { Agent, request } from 'node:http';
import { DEMO_CLIENTS } from '../src/operations/seed/demo-profile.ts';
import { cpuMicros } from './harness.ts';

// The load of bench:refresh and bench/refresh-ab.ts: token families of the demo client rotated
// through POST /oauth/token (grant_type=refresh_token), each family's next request carrying the
// token its last one returned.

const CLIENT_ID = DEMO_CLIENTS[0].client_id;

export interface Load {
  readonly rotations: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuMicros: number;
}

export interface Answer {
  readonly status: number;
  readonly body: string;
}

export function post(agent: Agent, url: URL, form: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': String(Buffer.byteLength(form)),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

export const formOf = (token: string) =>
  new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: CLIENT_ID }).toString();

/**
 * Every chain rotated one after the other for `seconds`, all chains at once; each answer checked.
 * `chains` holds each family's current token, updated in place (the baseline's never change).
 */
export async function load(
  base: string,
  chains: string[],
  seconds: number,
  pid: number | undefined,
): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: chains.length });
  const url = new URL('/oauth/token', base);
  const times: number[] = [];
  const cpuBefore = cpuMicros(pid);
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    chains.map(async (_, i) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const answer = await post(agent, url, formOf(chains[i]!));
        times.push(performance.now() - t0);
        const next =
          answer.status === 200
            ? (JSON.parse(answer.body) as { refresh_token?: unknown }).refresh_token
            : undefined;
        if (typeof next !== 'string')
          throw new Error(`rotation: ${answer.status} ${answer.body.slice(0, 300)}`);
        chains[i] = next;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuMicros(pid);
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  return {
    rotations: times.length,
    seconds: elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpuMicros: cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : Number.NaN,
  };
}
