/**
 * A field that holds several addresses (Cc) is one line of text. Its entries
 * are separated as the send splits them (commas, semicolons, spaces), so the
 * entry being typed — the last one — is exactly what will be sent, and a
 * suggestion picked for it replaces that entry and nothing else.
 */
const SEPARATOR = /[,;\s]/;

/** The addresses a list holds, in order, without the separators or empty entries. */
export function splitAddresses(text: string): string[] {
  return text.split(/[,;\s]+/).filter(Boolean);
}

/** Where the last entry starts: just after the last separator (0 when there is none). */
function lastEntryStart(text: string): number {
  let start = text.length;
  while (start > 0 && !SEPARATOR.test(text.charAt(start - 1))) start -= 1;
  return start;
}

/** The entry being typed: what follows the last separator ("" right after one). */
export function lastEntry(text: string): string {
  return text.slice(lastEntryStart(text));
}

/** `text` with its last entry replaced by `address` and `, ` left ready for the next one. */
export function replaceLastEntry(text: string, address: string): string {
  return `${text.slice(0, lastEntryStart(text))}${address}, `;
}
