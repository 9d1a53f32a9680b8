/**
 * The one message at the bottom of the screen that something just happened, with
 * a way to take it back ("Conversation closed · Undo"). A tiny external store, so
 * the message outlives the view that showed it: closing a conversation and then
 * leaving it still leaves the Undo at hand.
 */
import { useSyncExternalStore } from "react";

export interface Toast {
  id: number;
  message: string;
  /** The button beside the message, e.g. Undo; pressing it dismisses the toast. */
  action?: { label: string; run: () => void };
}

/** How long a toast stays, unless its action is used or it is dismissed earlier. */
export const TOAST_MS = 8_000;

let current: Toast | null = null;
let counter = 0;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

export function showToast(toast: Omit<Toast, "id">): void {
  counter += 1;
  current = { ...toast, id: counter };
  emit();
}

/** Dismiss `id` (or whatever shows, without an id); a newer toast stays. */
export function dismissToast(id?: number): void {
  if (current === null || (id !== undefined && current.id !== id)) return;
  current = null;
  emit();
}

export function useToast(): Toast | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
    () => null,
  );
}
