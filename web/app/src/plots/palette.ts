// The plots' colours, as SVG presentation attributes (a strict CSP allows those, not `style`).
// Each has at least 3:1 contrast with white (WCAG 1.4.11, graphics), text at least 4.5:1
// (1.4.3); a test checks it. Colour is never the only cue: rows and segments are named in words.

/** Text and axis lines. */
export const INK = '#1a1a1a';
/** Secondary text (the notes under a bar), and the baseline of a day without reads. */
export const MUTED = '#595959';
export const BASELINE = '#767676';

/** Reads of one app. */
export const APP_BAR = '#1f5fa8';
/** Reads of the apps folded into "Other apps". */
export const OTHER_BAR = '#595959';

/** Said by the person: solid. Not said by them: stripes of another hue (a pattern, not only a colour). */
export const STATED = '#1f5fa8';
export const NOT_STATED = '#a3480f';

/** Confidence bands, surest darkest; the least sure is striped as well. */
export const BAND_FILLS = ['#08306b', '#2f6db5', '#5b8bc9', '#767676'] as const;

/** Every colour drawn on the white background, for the contrast test. */
export const GRAPHIC_COLOURS = [APP_BAR, OTHER_BAR, STATED, NOT_STATED, BASELINE, ...BAND_FILLS];
export const TEXT_COLOURS = [INK, MUTED];
