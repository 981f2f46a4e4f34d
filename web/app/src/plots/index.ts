// The plots of the person's web app (issue 12, item 4; docs/web-app-plots.md). Each returns an
// HTML string: a figure, its SVG chart and the same numbers as a table. Style: plots.css.
export { accessOverTime } from './access.ts';
export { confidenceMix } from './confidence.ts';
