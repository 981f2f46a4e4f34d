import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { DEMO_LOGIN } from '../../src/operations/seed/seed-demo.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { BIN, type CliSandbox, ROOT, sandbox, show } from '../support/cli.ts';
import { holdRequest } from '../support/in-flight.ts';
import { freePort } from '../support/provider.ts';
import { grantThroughConsent, pendingRequest } from '../support/seed-over-http.ts';
import { auditEvent } from '../support/store-records.ts';
import {
  a2aMessage,
  aguiRun,
  CLIENT,
  consentDecision,
  consentRefresh,
  effectiveRead,
  mcpTool,
  oauthRefresh,
  proposal,
  revocation,
} from '../support/surface-requests.ts';
import { signInOverHttp } from '../support/web-session.ts';
import { type Child, waitForExit, waitForLine } from './serve-child.ts';

// `ppx serve` as an operator runs it (issue 11, item 4): one access-log line per request and
// never a token; JSON lines on request; /healthz and /readyz; SIGTERM answers what is in flight
// and closes the store; a busy port said in words; the base URL remembered for `mint`.

interface Serving {
  readonly child: Child;
  readonly log: { out: string; err: string };
  readonly url: string;
}

async function serve(box: CliSandbox, extra: string[] = [], port?: number): Promise<Serving> {
  port ??= await freePort();
  const log = { out: '', err: '' };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--seed-demo', ...extra], {
    cwd: ROOT,
    env: box.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log.out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log.err += d));
  await waitForLine(child, /listening/, 20_000, log);
  return { child, log, url: `http://127.0.0.1:${port}` };
}

async function stop(s: Serving): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  await waitForExit(s.child, 20_000);
}

/** Waits until the log has a line matching `pattern` (the line for a request comes after its answer). */
async function logLine(s: Serving, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = s.log.out.split('\n').find((l) => pattern.test(l));
    if (line !== undefined) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no log line ${pattern}\n${s.log.out}`);
}

describe('ppx serve: logs, health and stopping', () => {
  const box = sandbox();
  let token = '';
  const running: Serving[] = [];
  after(async () => {
    for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    box.cleanup();
  });

  it('logs one line per request, with the caller kind and never the token or the query', async () => {
    const minted = await box.run(['seed', '--demo']);
    assert.equal(minted.code, 0, show(minted));
    const port = await freePort();
    const subject = await box.run(['mint', 'subject', '--base-url', `http://127.0.0.1:${port}`]);
    assert.equal(subject.code, 0, show(subject));
    token = /eyJ[\w.-]+/.exec(subject.stdout)?.[0] ?? '';
    assert.ok(token, subject.stdout);
    const granted = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--json',
    ]);
    assert.equal(granted.code, 0, show(granted));
    const grantToken = (JSON.parse(granted.stdout) as { access_token: string }).access_token;
    const s = await serve(box, [], port);
    running.push(s);
    const summary = await fetch(`${s.url}/v1/profile/summary`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(summary.status, 200);
    const query = await fetch(`${s.url}/v1/profile/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${grantToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(query.status, 200);
    assert.match(await logLine(s, /POST \/v1\/profile\/query /), / 200 \d+\.\dms grant$/);
    assert.ok(!s.log.out.includes(grantToken), 'a grant token reached the log');
    const refused = await fetch(`${s.url}/v1/audit/events?limit=1&grant_id=secret-looking`, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    assert.equal(refused.status, 401);
    assert.match(
      await logLine(s, /GET \/v1\/profile\/summary /),
      /^\d{4}-\d\d-\d\dT\S+Z GET \/v1\/profile\/summary 200 \d+\.\dms subject$/,
    );
    assert.match(await logLine(s, /GET \/v1\/audit\/events /), / 401 \d+\.\dms none$/);
    assert.ok(!s.log.out.includes(token) && !s.log.err.includes(token), 'a token reached the log');
    assert.ok(!s.log.out.includes('secret-looking'), 'a query string reached the log');
  });

  it('answers /healthz and /readyz', async () => {
    const s = running[0]!;
    const health = await fetch(`${s.url}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);
    const ready = await fetch(`${s.url}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }]);
    assert.equal(ready.headers.get('cache-control'), 'no-store');
  });

  it('on SIGTERM answers the request in flight, then closes the store and exits 0', async () => {
    const s = running[0]!;
    const body = JSON.stringify({ context: { climate: 'hot_humid' } });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${s.url}/v1/profile/effective`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      // Half the body now; the rest after the signal: the request is in flight when it comes.
      req.write(body.slice(0, 10));
      // (The server cannot tell a test it has read those bytes: the one timer left here.)
      setTimeout(() => {
        s.child.kill('SIGTERM');
        // The rest once the server says it is draining, not after a guessed while.
        logLine(s, /SIGTERM: finishing the requests in flight/).then(() => req.end(body.slice(10)), reject);
      }, 200);
    });
    const answered = await answer;
    assert.equal(answered.status, 200, answered.text);
    const exit = await waitForExit(s.child, 20_000);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.match(s.log.out, /SIGTERM: finishing the requests in flight/);
    assert.match(s.log.out, /^stopped$/m);
    // Closed cleanly: the read's audit event is there, and the base URL it served on.
    const store = await openSqliteStore(box.db);
    try {
      assert.equal(await store.getSetting('served_base_url'), s.url);
      const subject = 'did:example:user-demo-0001';
      const events = await store.listAudit({
        subject_id: subject,
        limit: 5,
        order: 'newest',
        action: 'effective',
      });
      assert.equal(events.events.length, 1);
    } finally {
      await store.close();
    }
  });

  it('on SIGTERM answers every request in flight, on every surface, then exits 0', async () => {
    // Seeded (again: it keeps the login) so that this test stands on its own.
    const seeded = await box.run(['seed', '--demo']);
    assert.equal(seeded.code, 0, show(seeded));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const mint = async (args: string[]) => {
      const r = await box.run(['mint', ...args, '--base-url', url, '--json']);
      assert.equal(r.code, 0, show(r));
      return JSON.parse(r.stdout) as { access_token: string; grant_id?: string };
    };
    const subjectToken = (await mint(['subject'])).access_token;
    const grant = ['grant', '--client', CLIENT, '--namespaces', 'core,fragrance'];
    const writer = (
      await mint([...grant, '--operations', 'read,query,propose_update', '--writeback', 'allow'])
    ).access_token;
    const mcp = (await mint([...grant, '--for', 'mcp'])).access_token;
    const a2a = (await mint([...grant, '--for', 'a2a'])).access_token;
    const doomed = await mint(grant);
    const s = await serve(box, [], port);
    running.push(s);
    // What clients hold by then: two refresh families, a consent request to decide, a session.
    const families = [
      await grantThroughConsent(url, subjectToken),
      await grantThroughConsent(url, subjectToken),
    ];
    const requestId = await pendingRequest(url);
    const session = await signInOverHttp(url, DEMO_LOGIN.username, DEMO_LOGIN.password);
    // Every surface, once for what can be done once, five times for what can be repeated; each on
    // a connection of its own, its body held back until the server has begun to drain.
    const repeatable = () => [
      effectiveRead(writer),
      proposal(writer, 7),
      mcpTool(mcp),
      a2aMessage(a2a),
      aguiRun(subjectToken),
    ];
    const requests = [
      ...[1, 2, 3, 4, 5].flatMap(repeatable),
      oauthRefresh(CLIENT, families[0]!.refresh),
      consentRefresh(CLIENT, families[1]!.refresh),
      consentDecision(session.session, session.csrf, requestId, 'approve'),
      revocation(subjectToken, doomed.grant_id!),
    ];
    const held = requests.map((r) =>
      holdRequest(url, r.label, { path: r.path, headers: r.headers, body: r.body! }),
    );
    await Promise.all(held.map((h) => h.sent));
    s.child.kill('SIGTERM');
    await logLine(s, /SIGTERM: finishing the requests in flight/);
    for (const h of held) h.finish();
    const answers = await Promise.all(held.map((h) => h.answered));
    const wrong = answers.flatMap((a, i) =>
      a.status !== undefined && requests[i]!.ok(a.status, a.text)
        ? []
        : [`${held[i]!.label}: ${a.status === undefined ? a.error : `${a.status} ${a.text.slice(0, 200)}`}`],
    );
    assert.deepEqual(wrong, [], `${wrong.length} of ${held.length} requests in flight were not answered`);
    assert.deepEqual(await waitForExit(s.child, 20_000), { code: 0, signal: null });
    // What they wrote is in the store, which was closed cleanly.
    const store = await openSqliteStore(box.db);
    try {
      assert.equal((await store.getGrantRequest(requestId))?.status, 'approved');
      assert.equal((await store.getGrant(doomed.grant_id!))?.status, 'revoked');
    } finally {
      await store.close();
    }
  });

  it('writes JSON lines with --log-format json', async () => {
    const s = await serve(box, ['--log-format', 'json']);
    running.push(s);
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    await logLine(s, /"path":"\/healthz"/);
    await stop(s);
    const lines = s.log.out.trim().split('\n');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    const access = lines.map((l) => JSON.parse(l)).find((e) => e.type === 'access');
    assert.deepEqual(Object.keys(access).sort(), ['at', 'caller', 'method', 'ms', 'path', 'status', 'type']);
    assert.deepEqual(
      [access.method, access.path, access.status, access.caller],
      ['GET', '/healthz', 200, 'none'],
    );
  });

  it('with --audit-retention-days prunes older events when it starts, and says so', async () => {
    const subject = 'subj_retention';
    const store = await openSqliteStore(box.db);
    const old = auditEvent({ subject_id: subject, at: new Date(Date.now() - 40 * 86_400_000).toISOString() });
    const recent = auditEvent({ subject_id: subject, at: new Date(Date.now() - 86_400_000).toISOString() });
    try {
      await store.appendAudit([old, recent]);
    } finally {
      await store.close();
    }
    const s = await serve(box, ['--audit-retention-days', '30']);
    running.push(s);
    await logLine(s, /^audit retention \(30 days\): removed 1 events from before \S+, \d+ unused key lists/);
    await stop(s);
    const reopened = await openSqliteStore(box.db);
    try {
      const left = await reopened.listAudit({ subject_id: subject, limit: 10 });
      assert.deepEqual(
        left.events.map((e) => e.event_id),
        [recent.event_id],
      );
    } finally {
      await reopened.close();
    }
  });

  it('says the port is in use, without a stack, when it is', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      const r = await box.run(['serve', '--port', String(port)]);
      assert.equal(r.code, 1, show(r));
      assert.match(r.stderr, new RegExp(`ppx serve: port ${port} is in use`));
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('refuses a log format it does not know', async () => {
    const r = await box.run(['serve', '--log-format', 'xml']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /the log format must be text or json/);
  });
});
