// The progress bar of the long commands (ppx seed --scale, ppx migrate), on stderr.

/** A bar on a terminal, redrawn in place; elsewhere (a log, CI) a line every 10 %. */
export function progressBar(
  total: number,
  unit: string,
): { update: (done: number) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  let shownTenth = -1;
  const shareOf = (done: number) => (total === 0 ? 1 : done / total);
  const line = (done: number) => {
    const share = shareOf(done);
    const width = 30;
    const filled = Math.round(share * width);
    const elapsed = (performance.now() - started) / 1000;
    const rate = done / Math.max(elapsed, 0.001);
    const left = rate > 0 ? (total - done) / rate : 0;
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(1)}% ${done}/${total} ${unit}, ${rate.toFixed(0)}/s, ${left.toFixed(0)} s left`;
  };
  return {
    update(done) {
      if (tty) process.stderr.write(`\r${line(done)}`);
      else if (Math.floor(shareOf(done) * 10) > shownTenth) {
        shownTenth = Math.floor(shareOf(done) * 10);
        process.stderr.write(`${line(done)}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}
