import { useSyncExternalStore } from "react";

function matches(query: string): boolean {
  return typeof window !== "undefined" && typeof window.matchMedia === "function"
    ? window.matchMedia(query).matches
    : false;
}

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (notify) => {
      if (typeof window === "undefined" || typeof window.matchMedia !== "function") return () => {};
      const list = window.matchMedia(query);
      list.addEventListener("change", notify);
      return () => list.removeEventListener("change", notify);
    },
    () => matches(query),
    () => false,
  );
}

/** Below 768 px the layout is one column with a bottom navigation. */
export const NARROW = "(max-width: 767px)";
export const useNarrow = () => useMediaQuery(NARROW);
export const useReducedMotion = () => useMediaQuery("(prefers-reduced-motion: reduce)");
