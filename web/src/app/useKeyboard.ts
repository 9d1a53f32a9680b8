/**
 * Single-key shortcuts (j, k, r, …) and `g` sequences (g i). Ignored while
 * typing in a field or when a dialog or a menu is open, so they never eat text.
 */
import { useEffect, useRef } from "react";

export type ShortcutMap = Partial<Record<string, () => void>>;

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
}

export function useKeyboard(shortcuts: ShortcutMap): void {
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  useEffect(() => {
    let prefix: string | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    function onKey(event: KeyboardEvent) {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return;
      // An open menu takes the keys (arrows, a name's first letters), as a dialog does.
      if (typing(event.target) || document.querySelector('[role="dialog"], [role="menu"]')) return;
      const key = event.key;
      const combo = prefix ? `${prefix} ${key}` : key;
      prefix = null;
      clearTimeout(timer);
      const action = latest.current[combo];
      if (action) {
        event.preventDefault();
        action();
      } else if (key === "g") {
        prefix = "g";
        timer = setTimeout(() => (prefix = null), 1200);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      clearTimeout(timer);
    };
  }, []);
}
