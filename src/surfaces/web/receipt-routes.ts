import type { Context, Hono } from 'hono';
import { listOwnReceipts, ownReceipt } from '../../operations/consent/person-receipts.ts';
import { currentSession } from '../shared/session.ts';
import type { WebContext } from './respond.ts';

// The person's consent receipts, for their web app (docs/receipts.md): the list as JSON, and one
// receipt as the signed `.jwt` file. Both need the signed-in session; a receipt of someone else
// is the same 404 as one that does not exist.

const HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

export function registerReceiptRoutes(app: Hono, web: WebContext): void {
  app.get('/app/receipts.json', async (c) => {
    const subjectId = await signedIn(c, web);
    if (subjectId === undefined) return notSignedIn(c);
    return c.json({ receipts: await listOwnReceipts(web.deps, subjectId) }, 200, HEADERS);
  });
  app.get('/app/receipts/:id/download', async (c) => {
    const subjectId = await signedIn(c, web);
    if (subjectId === undefined) return notSignedIn(c);
    const found = await ownReceipt(web.deps, subjectId, c.req.param('id'));
    if (!found.ok) {
      return c.json({ error: 'not_found', error_description: 'There is no such receipt.' }, 404, HEADERS);
    }
    const name = `consent-receipt-${found.value.receipt_id}.jwt`;
    return c.body(found.value.jws, 200, {
      ...HEADERS,
      'Content-Type': 'application/jwt',
      'Content-Disposition': `attachment; filename="${name}"`,
    });
  });
}

async function signedIn(c: Context, web: WebContext): Promise<string | undefined> {
  const session = await currentSession(c, web.deps, web.plan);
  return session?.record.subject_id;
}

function notSignedIn(c: Context): Response {
  return c.json({ error: 'invalid_token', error_description: 'You are not signed in.' }, 401, HEADERS);
}
