/**
 * The one message at the bottom of the screen that something just happened, with
 * a way to take it back ("Conversation closed · Undo"). A tiny external store, so
 * the message outlives the view that showed it: closing a conversation and then
 * leaving it still leaves the Undo at hand.
 */
import { createSlot } from "./slot";

export interface Toast {
  id: number;
  message: string;
  /** The button beside the message, e.g. Undo; pressing it dismisses the toast. */
  action?: { label: string; run: () => void };
}

/** How long a toast stays, unless its action is used or it is dismissed earlier. */
export const TOAST_MS = 8_000;

const slot = createSlot<Omit<Toast, "id">>();

export function showToast(toast: Omit<Toast, "id">): void {
  slot.set(toast);
}

/** Dismiss `id` (or whatever shows, without an id); a newer toast stays. */
export function dismissToast(id?: number): void {
  const current = slot.get();
  if (current === null || (id !== undefined && current.id !== id)) return;
  slot.clear();
}

export function useToast(): Toast | null {
  return slot.use();
}
