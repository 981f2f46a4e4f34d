import type { ConsentReceiptClaims } from '../../../../src/model/consent-receipt.ts';
import type { ShownReceipt } from '../../../../src/operations/consent/person-receipts.ts';
import { receiptSentence } from '../../../../src/surfaces/shared/receipt-words.ts';
import { WRITEBACK_WORDS } from '../../../../src/surfaces/shared/writeback-words.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { timeWords } from '../words.ts';

// The person's consent receipts (docs/receipts.md): one per decision about an app's access, newest
// first, each said in words, with what it says underneath and a Download button for the signed
// `.jwt` file, which anyone can check against the provider's published keys (`ppx receipt verify`).

export const receiptsView: View = {
  path: '/app/receipts',
  title: 'Receipts',
  sections: (ctx) => [receiptsSection(ctx)],
};

const list: { receipts: ShownReceipt[]; loadedFor?: string; error?: string } = { receipts: [] };
let loading = false;

/** Reloaded whenever the grants the state shows change (a revocation adds a receipt). */
function grantsKey(ctx: AppContext): string {
  const grants = ctx.state()?.active_grants ?? [];
  return JSON.stringify(grants.map((g) => [g.grant_id, g.status, g.expires_at]));
}

async function load(ctx: AppContext, key: string): Promise<void> {
  if (loading) return;
  loading = true;
  try {
    const res = await fetch('/app/receipts.json', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(String(res.status));
    list.receipts = ((await res.json()) as { receipts: ShownReceipt[] }).receipts;
    delete list.error;
  } catch {
    list.error = 'Your receipts could not be shown. Try again in a moment.';
  } finally {
    list.loadedFor = key;
    loading = false;
  }
  ctx.redraw();
}

function receiptsSection(ctx: AppContext): Section {
  const key = grantsKey(ctx);
  if (list.loadedFor !== key && ctx.state() !== undefined) void load(ctx, key);
  return {
    id: 'receipts',
    key: JSON.stringify([list.receipts.map((r) => r.receipt_id), list.error ?? '']),
    build: () =>
      h(
        'section',
        { id: 'receipts', 'aria-labelledby': 'receipts-h' },
        h('h2', { id: 'receipts-h', tabindex: '-1' }, 'What you decided'),
        h(
          'p',
          {},
          'Each time you let an app see your preferences, say no, or an access ends, the provider signs a receipt. Download one to keep it: anyone can check that it is genuine.',
        ),
        list.error !== undefined ? h('p', { class: 'error', role: 'alert' }, list.error) : null,
        list.receipts.length === 0 && list.error === undefined
          ? h('p', { class: 'empty' }, 'No receipts yet.')
          : h('ul', { class: 'receipts' }, ...list.receipts.map((r) => receiptItem(ctx, r))),
      ),
  };
}

function receiptItem(ctx: AppContext, r: ShownReceipt): HTMLElement {
  const button = h(
    'button',
    {
      type: 'button',
      id: `download-${r.receipt_id}`,
      'aria-label': `Download the receipt of ${timeWords(r.issued_at)}`,
    },
    'Download',
  );
  button.addEventListener('click', () => void download(ctx, r.receipt_id, button));
  return h(
    'li',
    { class: 'receipt', 'data-receipt': r.receipt_id },
    h('p', { class: 'receipt-words' }, receiptSentence(r.claims)),
    h('p', { class: 'hint' }, `Signed ${timeWords(r.issued_at)}`),
    h('details', {}, h('summary', {}, 'What the receipt says'), fieldList(r.claims)),
    h('div', { class: 'actions' }, button),
  );
}

function fieldList(c: ConsentReceiptClaims): HTMLElement {
  const rows: [string, string][] = [
    ['Receipt', c.jti],
    ['Decision', c.decision],
    ['When', timeWords(c.decided_at)],
    ['App', `${c.app.name} (${c.app.client_id})`],
    ['You, as the app knows you', c.sub],
    ['Purposes', c.purposes.join(', ')],
    ['Areas', c.data.namespaces.join(', ')],
    ...(c.data.claim_keys ? [['Preferences', c.data.claim_keys.join(', ')] as [string, string]] : []),
    ['What it may do', c.data.operations.join(', ')],
    ['Changes it may make', WRITEBACK_WORDS[c.writeback_policy]],
    ['Ends', c.expires_at !== undefined ? timeWords(c.expires_at) : 'when you stop it'],
    ...(c.grant_id !== undefined ? [['Grant', c.grant_id] as [string, string]] : []),
    ...(c.notice ? [['What you were shown (SHA-256)', c.notice.hash] as [string, string]] : []),
    ['Signed by', `${c.controller.name} (${c.iss})`],
  ];
  return h('dl', { class: 'receipt-fields' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

async function download(ctx: AppContext, id: string, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    const res = await fetch(`/app/receipts/${encodeURIComponent(id)}/download`);
    if (!res.ok) throw new Error(String(res.status));
    const blob = new Blob([await res.text()], { type: 'application/jwt' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: `consent-receipt-${id}.jwt`, class: 'hidden' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
    ctx.notify('The receipt was downloaded as a file.');
  } catch {
    ctx.notify('The receipt could not be downloaded. Try again in a moment.', 'error');
  } finally {
    button.disabled = false;
  }
}
