import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { money, moneyCompact } from "../app/format";

/**
 * Bars of money out per category in one currency (uPlot; this module is loaded lazily so the
 * chart library stays out of the first load). Values are the server's sums, plotted, never added.
 */
export default function SpendingChart({
  currency,
  bars,
}: {
  currency: string;
  bars: { label: string; value: number }[];
}) {
  const host = useRef<HTMLDivElement>(null);
  // The biggest categories are drawn (fewer on a narrow screen, so their names stay legible); the table has all.
  const narrow = typeof window !== "undefined" && window.innerWidth < 600;
  const limit = narrow ? 6 : 12;
  const all = bars;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const bars = all.slice(0, limit);
    const xs = bars.map((_, i) => i);
    const ys = bars.map((b) => b.value);
    const style = getComputedStyle(document.documentElement);
    const accent = style.getPropertyValue("--accent").trim() || "#1f5fbf";
    const fg = style.getPropertyValue("--fg").trim() || "#1d1d1b";
    const line = style.getPropertyValue("--line").trim() || "#d9d9d4";
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: Math.max(220, 28 * bars.length),
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false, range: [-0.6, bars.length - 0.4] }, y: { range: (_u, _min, max) => [0, max * 1.1] } },
      axes: [
        {
          stroke: fg,
          grid: { show: false },
          splits: () => xs,
          values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? (bars[s]?.label ?? "") : "")),
          rotate: narrow || bars.length > 6 ? -45 : 0,
          size: narrow || bars.length > 6 ? 110 : 40,
        },
        {
          stroke: fg,
          grid: { stroke: line },
          size: 60,
          values: (_u, splits) => splits.map((s) => moneyCompact(s, currency)),
        },
      ],
      series: [
        {},
        {
          label: currency,
          fill: accent,
          stroke: accent,
          paths: uPlot.paths.bars!({ size: [0.6, 64] }),
          points: { show: false },
        },
      ],
    };
    const chart = new uPlot(opts, [xs, ys], el);
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(280, el.clientWidth), height: opts.height }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [all, limit, currency]);
  return (
    <figure className="chart-figure">
      <div ref={host} className="chart" role="img" aria-label={`Spending by category in ${currency}`} />
      {all.length > limit ? (
        <figcaption className="muted">
          The {limit} biggest of {all.length} categories; the figures below list them all.
        </figcaption>
      ) : null}
      {/* The same figures as a table, for screen readers and for reading exact amounts. */}
      <details>
        <summary>Figures ({currency})</summary>
        <table>
          <tbody>
            {bars.map((b) => (
              <tr key={b.label}>
                <th scope="row">{b.label}</th>
                <td className="num">{money(b.value, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
