import type { ProposeResult } from '@ppx-provider/client';
import type { Reading, Shown } from './suggest.ts';

// The app's pages: plain HTML forms, no script. Every value is escaped by the `html` tag.

/** HTML already escaped: what `html` returns and nests without escaping again. */
class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function part(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(part).join('');
  if (v === undefined || v === null || v === false) return '';
  return String(v).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(strings.reduce((out, s, i) => out + part(values[i - 1]) + s));
}

function layout(title: string, main: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Fragrance suggester</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header><p class="app">Fragrance suggester</p></header>
<main>
${main}
</main>
</body>
</html>
`.text;
}

/** What the page needs to draw the "connect" form. */
export interface FormState {
  readonly csrf: string;
  /** The person's id at their provider, as last typed (or the demo person's). */
  readonly subjectId: string;
}

function connectForm(form: FormState, button: string): Html {
  return html`<form method="post" action="/connect" class="connect">
<input type="hidden" name="csrf" value="${form.csrf}">
<label for="subject">Your ID at your preferences provider</label>
<input id="subject" name="subject_id" value="${form.subjectId}" required aria-describedby="subject-hint" autocomplete="username" spellcheck="false">
<p id="subject-hint" class="hint">Your provider gave you this. You will sign in there, see what this app asks for, and choose what to share.</p>
<button type="submit">${button}</button>
</form>`;
}

export function homePage(form: FormState): string {
  return layout(
    'Connect your preferences',
    html`<h1>Find a scent that suits you</h1>
<p>This app suggests a fragrance from the preferences you keep with your preferences provider. It sees only what you allow there, and you can stop it at any time.</p>
<h2>What this app will ask for</h2>
<ul>
<li>Your fragrance preferences: the scent families you like, how strong, sweet and fresh you like a scent, and the notes you dislike.</li>
<li>Whether you watch the price (from your general traits).</li>
<li>To read them, and to suggest changes to them. Nothing changes until you accept a change at your provider.</li>
<li>For 30 days.</li>
</ul>
<h2>Connect your preferences</h2>
${connectForm(form, 'Connect your preferences')}`,
  );
}

export const OCCASIONS = [
  ['', 'Every day'],
  ['office', 'At the office'],
  ['date_night', 'A date night'],
] as const;

export function suggestionPage(reading: Reading, occasion: string, form: FormState, notice?: string): string {
  const s = reading.suggestion;
  const options = OCCASIONS.map(
    ([value, words]) =>
      html`<option value="${value}"${value === occasion ? html` selected` : ''}>${words}</option>`,
  );
  return layout(
    'Your suggestion',
    html`<h1>Your suggestion</h1>
${notice ? html`<p role="status" class="notice">${notice}</p>` : ''}
<form method="get" action="/" class="occasion">
<label for="occasion">For which occasion?</label>
<select id="occasion" name="occasion">${options}</select>
<button type="submit">Suggest again</button>
</form>
${
  s
    ? html`<section aria-labelledby="pick">
<h2 id="pick">We suggest ${s.name}</h2>
<p>A ${s.family} scent of ${s.words}. We would pick ${s.bottle}.</p>
${s.why.length > 0 ? html`<p>Why: ${s.why.join('; ')}.</p>` : ''}
${
  reading.families
    ? html`<form method="post" action="/liked">
<input type="hidden" name="csrf" value="${form.csrf}">
<input type="hidden" name="family" value="${s.family}">
<input type="hidden" name="name" value="${s.name}">
<button type="submit">Tell your provider I liked ${s.name}</button>
</form>`
    : ''
}
</section>`
    : html`<p>You shared nothing this app can suggest from. Connect again and share your fragrance preferences.</p>`
}
<section aria-labelledby="shared">
<h2 id="shared">What your provider shared</h2>
<dl class="shared">${reading.shown.map(shownLine)}</dl>
${reading.expiresAt ? html`<p>This access lasts until ${dayWords(reading.expiresAt)}. You can stop it sooner at your provider.</p>` : ''}
</section>
<h2>Stop or start again</h2>
<form method="post" action="/disconnect">
<input type="hidden" name="csrf" value="${form.csrf}">
<button type="submit">Disconnect: end this app's access</button>
</form>
${connectForm(form, 'Connect again')}`,
  );
}

/** This app ended its own access (POST /disconnect). */
export function disconnectedPage(form: FormState): string {
  return layout(
    'Disconnected',
    html`<h1>Disconnected</h1>
<p role="status">This app no longer has access to your preferences. Your provider has ended it, and the app has forgotten it.</p>
<h2>Connect again</h2>
${connectForm(form, 'Connect again')}`,
  );
}

function shownLine(line: Shown): Html {
  const words =
    line.state === 'present'
      ? line.words
      : line.state === 'not_granted'
        ? 'You did not share this.'
        : 'Your provider has nothing on this.';
  return html`<div class="${line.state}"><dt>${line.label}</dt><dd>${words}</dd></div>`;
}

const dayWords = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** What became of "I liked it", in words. */
export function outcomeWords(result: ProposeResult, name: string): string {
  switch (result.outcome) {
    case 'applied':
      return `Your provider updated your preferences: it now knows you liked ${name}.`;
    case 'queued_for_review':
      return `Sent: you liked ${name}. It is waiting for your review at your provider: nothing changes until you accept it.`;
    case 'refused':
      return `Your provider did not accept it: ${result.reason}`;
  }
}

/** The access is over: `grant_revoked` (stopped at the provider) or `grant_expired`, and the provider's words. */
export function endedPage(
  code: 'grant_revoked' | 'grant_expired',
  description: string,
  form: FormState,
): string {
  return layout(
    'Access ended',
    html`<h1>Your provider says this access has ended</h1>
<p>${code === 'grant_expired' ? 'The time you allowed this app has run out.' : 'This app’s access was stopped at your provider.'} This app has forgotten the connection and can no longer read your preferences.</p>
<details><summary>What your provider said</summary><p>“${description}”</p></details>
<h2>Connect again</h2>
${connectForm(form, 'Connect again')}`,
  );
}

export function saidNoPage(form: FormState): string {
  return layout(
    'You said no',
    html`<h1>You said no</h1>
<p>Nothing was shared with this app.</p>
<h2>Changed your mind?</h2>
${connectForm(form, 'Ask again')}`,
  );
}

export function problemPage(description: string, form: FormState): string {
  return layout(
    'Something went wrong',
    html`<h1>Something went wrong</h1>
<p>${description}</p>
<p><a href="/">Try again</a>, or start over:</p>
${connectForm(form, 'Connect your preferences')}`,
  );
}

export function notFoundPage(): string {
  return layout('Not found', html`<h1>There is no such page</h1><p><a href="/">Back to the start</a></p>`);
}
