import { holdRequest } from '../test/support/in-flight.ts';
import {
  a2aMessage,
  aguiRun,
  CLIENT,
  consentAsk,
  effectiveRead,
  mcpTool,
  oauthRefresh,
  pkcePair,
  proposal,
  type SurfaceRequest,
} from '../test/support/surface-requests.ts';
import type { SoakWorld } from './soak-world.ts';

// The soak's last step: SIGTERM while requests are in flight. Besides whatever the steady load
// has in flight at that moment, requests of every surface are held in flight on purpose (their
// bodies half sent, the rest sent once the server says it is draining), so that there surely are
// some; each must be answered as it would have been, and the process must exit 0.

export interface DrainReport {
  /** Requests held in flight across the signal, and those not answered as expected. */
  readonly held: number;
  readonly heldFailures: readonly string[];
  readonly exit: { readonly code: number | null; readonly signal: string | null };
  /** From SIGTERM to the process' exit. */
  readonly ms: number;
  readonly ok: boolean;
}

export async function drainCheck(world: SoakWorld): Promise<DrainReport> {
  const t = world.tokens;
  const requests: SurfaceRequest[] = [
    ...[1, 2, 3, 4].flatMap((i) => [
      effectiveRead(t.read),
      proposal(t.writeApplied, 10_000 + i),
      mcpTool(t.mcp),
      a2aMessage(t.a2a),
      aguiRun(world.subject),
    ]),
    consentAsk(pkcePair().challenge),
    oauthRefresh(CLIENT, world.reserved),
  ];
  const held = requests.map((r) =>
    holdRequest(world.base, r.label, { path: r.path, headers: r.headers, body: r.body! }),
  );
  await Promise.all(held.map((h) => h.sent));
  const started = performance.now();
  world.server.proc.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  while (!world.server.log.out.includes('SIGTERM: finishing') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  for (const h of held) h.finish();
  const answers = await Promise.all(held.map((h) => h.answered));
  const heldFailures = answers.flatMap((a, i) =>
    a.status !== undefined && requests[i]!.ok(a.status, a.text)
      ? []
      : [`${held[i]!.label}: ${a.status === undefined ? a.error : `${a.status} ${a.text.slice(0, 160)}`}`],
  );
  const exit = await world.server.exited;
  return {
    held: held.length,
    heldFailures,
    exit,
    ms: Math.round(performance.now() - started),
    ok: heldFailures.length === 0 && exit.code === 0,
  };
}
