/**
 * A mail body as Markdown, loaded on first use: the Markdown toolchain is the
 * largest part of the app and the first paint (the list) does not need it.
 * Until it arrives the plain text shows, so nothing jumps. Images are shown as
 * placeholders (BlockedImage), never fetched.
 */
import { lazy, Suspense } from "react";
import { BlockedImage } from "./BlockedImage";

const Renderer = lazy(() => import("./MarkdownRenderer"));

export function Markdown({ text, className = "" }: { text: string; className?: string }) {
  return (
    <Suspense fallback={<div className={`prose-mail whitespace-pre-wrap ${className}`}>{text}</div>}>
      <Renderer text={text} className={className} image={BlockedImage} />
    </Suspense>
  );
}
