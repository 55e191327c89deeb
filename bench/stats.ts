/** Latency summary of one series of samples (milliseconds). */
export interface Summary {
  n: number;
  median: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile over sorted samples. */
function percentile(sorted: number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

export const ms = (x: number) => `${x.toFixed(3)} ms`;

/** Times `n` sequential calls of `fn` after `warmup` untimed ones. */
export async function measure(fn: () => Promise<unknown>, n: number, warmup: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}
