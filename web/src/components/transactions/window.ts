import { useEffect, useState, type RefObject } from "react";

/** Rows drawn above and below the visible ones, so keyboard moves and quick scrolls find them drawn. */
const BUFFER = 30;

/**
 * Windowing for a list of one-line rows of about `rowHeight` px: which slice [start, end) of `count`
 * rows overlaps the viewport (plus a buffer). Only that slice is in the DOM, with spacers for the rest,
 * so a list of 10,000 rows costs what a screenful costs.
 */
export function useRowWindow(body: RefObject<HTMLElement | null>, count: number, rowHeight: number) {
  const [range, setRange] = useState({ start: 0, end: Math.min(count, 2 * BUFFER) });
  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const el = body.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top; // the list's top relative to the viewport
      const start = Math.max(0, Math.floor(-top / rowHeight) - BUFFER);
      const end = Math.min(count, Math.ceil((window.innerHeight - top) / rowHeight) + BUFFER);
      setRange((r) => (r.start === start && r.end === end ? r : { start, end }));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    return () => {
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [body, count, rowHeight]);
  return range;
}
