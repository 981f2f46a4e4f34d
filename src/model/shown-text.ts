// Text from outside (claim values and map keys a grantee wrote, free-form domains, app names)
// is shown to people in pages, A2UI surfaces and explanations. Bidi embedding, override and
// isolate controls and the directional marks make text draw as something else: an RLO
// (U+202E) reverses what follows it, so "‮emosewa si ppa siht‬" reads "this app is awesome".
// They are taken out wherever words are drawn; this is their one definition (issue 22 item 14).

/**
 * U+202A–202E (embeddings, overrides, PDF), U+2066–2069 (isolates, PDI), U+200E/200F (LRM,
 * RLM) and U+061C (ALM).
 */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;

/** `text` without bidi controls; plain text keeps its letters, scripts and order as written. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
