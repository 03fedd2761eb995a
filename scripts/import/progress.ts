// Progress: a redrawn bar on a terminal, plain lines now and then otherwise (logs, CI).
const WIDTH = 28;

const fmtBytes = (b: number) =>
  b >= 1 << 30
    ? `${(b / (1 << 30)).toFixed(2)} GiB`
    : b >= 1 << 20
      ? `${(b / (1 << 20)).toFixed(1)} MiB`
      : `${Math.round(b / 1024)} KiB`;
const fmtTime = (s: number) =>
  s >= 60
    ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`
    : `${s.toFixed(1)}s`;

export type Phase = { update(done: number, note?: string): void; done(note?: string): void };

export class Progress {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly intervalMs: number;

  constructor({
    stream = process.stderr,
    tty = Boolean(stream.isTTY),
    intervalMs = tty ? 100 : 10_000,
  }: { stream?: NodeJS.WriteStream; tty?: boolean; intervalMs?: number } = {}) {
    this.stream = stream;
    this.tty = tty;
    this.intervalMs = intervalMs;
  }
  /** A phase with `total` units (bytes when unit is "bytes"); returns { update(done, note), done(note) }. */
  phase(label: string, total: number, unit = ""): Phase {
    const started = Date.now();
    let last = 0;
    let lastPct = -1;
    const render = (done: number, note = "") => {
      const pct = total > 0 ? Math.min(1, done / total) : 0;
      const elapsed = (Date.now() - started) / 1000;
      const amount =
        unit === "bytes"
          ? `${fmtBytes(done)} / ${fmtBytes(total)}`
          : `${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")}${unit ? ` ${unit}` : ""}`;
      const eta = pct > 0.01 && pct < 1 ? `, ${fmtTime((elapsed / pct) * (1 - pct))} left` : "";
      return {
        pct,
        text: `${label} ${amount} (${(pct * 100).toFixed(1)}%, ${fmtTime(elapsed)}${eta})${note ? ` ${note}` : ""}`,
      };
    };
    return {
      update: (done, note) => {
        const now = Date.now();
        if (now - last < this.intervalMs) return;
        last = now;
        const { pct, text } = render(done, note);
        if (this.tty) {
          const filled = Math.round(pct * WIDTH);
          this.stream.write(
            `\r\x1b[2K[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${text}`,
          );
        } else if (Math.floor(pct * 20) !== lastPct) {
          lastPct = Math.floor(pct * 20);
          this.stream.write(`${text}\n`);
        }
      },
      done: (note = "") => {
        const elapsed = (Date.now() - started) / 1000;
        const rss = `${Math.round(process.memoryUsage().rss / (1 << 20))} MiB resident`;
        const line = `${label} done in ${fmtTime(elapsed)}${note ? `: ${note}` : ""} (${rss})`;
        this.stream.write(this.tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
      },
    };
  }
  log(text: string) {
    this.stream.write(`${text}\n`);
  }
}
