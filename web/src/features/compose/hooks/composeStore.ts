/**
 * Which compose window is open, if any. A tiny external store so anything
 * (a button, a keyboard shortcut, the reading pane) can open it.
 */
import type { Draft, Mail } from "@/api";
import { createSlot } from "@/lib/slot";

export type ComposeRequest =
  | { mode: "new"; to?: string }
  | { mode: "reply" | "replyAll" | "forward"; mail: Mail }
  | { mode: "draft"; draft: Draft };

export interface OpenCompose {
  id: number;
  request: ComposeRequest;
}

const slot = createSlot<{ request: ComposeRequest }>();

export function openCompose(request: ComposeRequest): void {
  slot.set({ request });
}

export function closeCompose(): void {
  slot.clear();
}

export function useComposeRequest(): OpenCompose | null {
  return slot.use();
}
