/** The delimiters bank exports use, in the order a tie is settled. */
export const DELIMITERS = [",", ";", "\t", "|"] as const;
export type Delimiter = (typeof DELIMITERS)[number];

/** How many times `ch` occurs outside double quotes on each of the first `maxLines` records. */
function countsPerLine(text: string, ch: string, maxLines: number): number[] {
  const counts: number[] = [];
  let n = 0;
  let quoted = false;
  let blank = true;
  for (let i = 0; i < text.length && counts.length < maxLines; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) {
      if (!blank) counts.push(n);
      n = 0;
      blank = true;
      continue;
    } else if (!quoted && c === ch) n++;
    if (c !== " " && c !== "\t") blank = false;
  }
  if (!blank && counts.length < maxLines) counts.push(n);
  return counts;
}

/**
 * The delimiter of a CSV: among `, ; tab |`, the one that splits the first
 * lines into the same number of fields, most fields winning; a candidate that
 * splits the header but not every line counts less than one that splits all.
 * A file with a single column has none of them, and is read as comma-separated.
 */
export function detectDelimiter(text: string, maxLines = 25): Delimiter {
  let best: Delimiter = ",";
  let bestScore = -1;
  for (const d of DELIMITERS) {
    const counts = countsPerLine(text, d, maxLines);
    if (counts.length === 0 || counts[0] === 0) continue;
    const consistent = counts.filter((c) => c === counts[0]).length / counts.length;
    const score = consistent * 1000 + Math.min(counts[0], 999);
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}
