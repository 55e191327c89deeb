/** The text patterns the searches send as parameters (LIKE and POSIX regex), built the same way for every table. */

/** LIKE pattern matching `term` anywhere, with LIKE's own wildcards taken literally. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, "\\$&")}%`;

/**
 * A POSIX regex (for ~*) matching `word` as a whole word: not preceded or
 * followed by a letter or digit. Regex metacharacters in the word are escaped.
 */
export const wholeWordPattern = (word: string) =>
  `(^|[^[:alnum:]])${word.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&")}([^[:alnum:]]|$)`;
