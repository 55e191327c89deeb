/** A one-line progress bar on a terminal; on anything else, nothing until the end (logs stay clean). */
export function progressBar(out: NodeJS.WriteStream, total: number, unit: string) {
  const width = 30;
  const tty = out.isTTY === true;
  let last = -1;
  const render = (done: number) => {
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * width);
    const pct = Math.floor(ratio * 100);
    return (
      `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(pct).padStart(3)}% ` +
      `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} ${unit}`
    );
  };
  return {
    update(done: number) {
      if (!tty || done === last) return;
      last = done;
      out.write(`\r${render(done)}`);
    },
    finish() {
      out.write(tty ? "\n" : `${render(total)}\n`);
    },
  };
}
