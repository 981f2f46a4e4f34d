import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Slow readers (issue 22, item 8), for the tests that play one: a client that sends its request
// and never reads the answer, the server's own figures from /metrics, and the memory the test
// process (which is the server's) holds alive.

/**
 * A client that sends its request and never reads a byte of the answer: the socket is paused
 * before anything arrives, so what the server writes waits in the kernel, then in the server.
 */
export function neverReading(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.pause();
  socket.on('error', () => undefined); // the server cutting it is the point
  const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${head}\r\n${body}`);
  return socket;
}

/** The value of a sample of /metrics' text (0 when absent), summed over the matching label sets. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What the process holds alive now: the JS heap and the buffers outside it, after a full GC. */
export function liveBytes(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

export const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;
