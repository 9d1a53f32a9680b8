/**
 * An icon by name: an SVG from lucide, never an emoji (a machine without an emoji
 * font shows empty boxes). The SVGs are a chunk of their own, asked for as soon as
 * this module loads, so the first paint's JavaScript stays small; until they arrive
 * an empty box of the same size holds the place, so nothing moves.
 */
import { lazy, Suspense } from "react";
import type { IconName } from "./iconNames";

export type { IconName };

const load = () => import("./Glyph");
const Glyph = lazy(load);
void load();

export function Icon({ name, className = "size-4" }: { name: IconName; className?: string }) {
  const box = `inline-block shrink-0 ${className}`;
  return (
    <Suspense fallback={<span aria-hidden="true" className={box} />}>
      <Glyph name={name} className={box} />
    </Suspense>
  );
}
