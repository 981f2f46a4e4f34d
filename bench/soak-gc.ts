// The server's heap after a full garbage collection, through its inspector (the soak starts
// `ppx serve` with --inspect on a loopback port): the Chrome DevTools Protocol's
// HeapProfiler.collectGarbage, then Runtime.getHeapUsage. Sampled heap sizes swing with when V8
// last collected; the size right after a forced full collection is what the process really
// keeps, so a leak shows as a line that climbs and noise does not.

export interface GcProbe {
  /** Bytes of V8 heap in use right after a full collection, and the heap's size then. */
  heapAfterGc(): Promise<{ used: number; total: number }>;
  close(): void;
}

/** The inspector's WebSocket URL, from what `node --inspect` printed on stderr. */
export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

export async function gcProbe(url: string): Promise<GcProbe> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${url}`)), {
      once: true,
    });
  });
  let next = 1;
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  ws.addEventListener('message', (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: Record<string, unknown> };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result ?? {});
    if (msg.id !== undefined) waiting.delete(msg.id);
  });
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      const usage = await call('Runtime.getHeapUsage');
      return { used: Number(usage['usedSize']), total: Number(usage['totalSize']) };
    },
    close: () => ws.close(),
  };
}
