/**
 * The words and phrases of a search, without its filters: what to highlight in
 * an excerpt. Tokens as the server reads them (core/mail/search_query.py): a
 * "quoted phrase" (closing quote optional) or a run of non-space characters;
 * `from:` `to:` `alias:` `is:` `has:` `type:` are filters, not words.
 */
// A filter with a quoted value (`alias:"my task"`) first, so its value is no phrase.
const TOKEN = /(?:from|to|alias|is|has|type):"[^"]*"?|"([^"]*)"?|(\S+)/gi;
const FILTER = /^(from|to|alias|is|has|type):/i;

export function queryTerms(q: string): string[] {
  const terms: string[] = [];
  for (const [token, phrase, word] of q.matchAll(TOKEN)) {
    if (phrase === undefined && word === undefined) continue; // a quoted filter
    if (word !== undefined && FILTER.test(word)) continue;
    const term = (phrase ?? word ?? "").trim();
    if (term && token) terms.push(term);
  }
  return terms;
}

/** `text` cut into plain and matching pieces (case-insensitive), for <mark>. */
export function splitMatches(text: string, terms: string[]): { text: string; match: boolean }[] {
  const needles = terms.map((t) => (t.toLowerCase().length === t.length ? t.toLowerCase() : t)).filter(Boolean);
  if (needles.length === 0) return [{ text, match: false }];
  // Lower-casing can change the length (İ): then match the case as typed, so indices hold.
  const folded = text.toLowerCase();
  const lower = folded.length === text.length ? folded : text;
  const pieces: { text: string; match: boolean }[] = [];
  let start = 0;
  let at = 0;
  while (at < text.length) {
    const needle = needles.find((n) => lower.startsWith(n, at));
    if (!needle) {
      at += 1;
      continue;
    }
    if (at > start) pieces.push({ text: text.slice(start, at), match: false });
    pieces.push({ text: text.slice(at, at + needle.length), match: true });
    at += needle.length;
    start = at;
  }
  if (start < text.length) pieces.push({ text: text.slice(start), match: false });
  return pieces;
}
