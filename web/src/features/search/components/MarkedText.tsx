import { splitMatches } from "../hooks/queryTerms";

/** Text with the searched words in <mark> (React escapes it: no HTML from the server runs). */
export function MarkedText({ text, terms }: { text: string; terms: string[] }) {
  return (
    <>
      {splitMatches(text, terms).map((piece, index) =>
        piece.match ? (
          <mark key={index} className="rounded-sm bg-warn-soft text-ink">
            {piece.text}
          </mark>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}
