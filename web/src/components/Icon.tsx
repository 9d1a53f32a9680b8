/**
 * An icon by name: an SVG from lucide, never an emoji (a machine without an emoji
 * font shows empty boxes). The SVGs are a chunk of their own, asked for as soon as
 * this module loads, so the first paint's JavaScript stays small; until they arrive
 * an empty box of the same size holds the place, so nothing moves. Once they are
 * there, icons render at once.
 */
import { lazy, Suspense, type ComponentType } from "react";
import type { IconName } from "./iconNames";

export type { IconName };

type GlyphProps = { name: IconName; className: string };

let Loaded: ComponentType<GlyphProps> | null = null;
/** Settles when the SVGs are loaded (the test setup waits for it). */
export const iconsReady = import("./Glyph").then((module) => {
  Loaded = module.default;
  return module;
});
const Pending = lazy(() => iconsReady);

export function Icon({ name, className = "size-4" }: { name: IconName; className?: string }) {
  const box = `inline-block shrink-0 ${className}`;
  if (Loaded) return <Loaded name={name} className={box} />;
  return (
    <Suspense fallback={<span aria-hidden="true" className={box} />}>
      <Pending name={name} className={box} />
    </Suspense>
  );
}
