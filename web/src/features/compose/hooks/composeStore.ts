/**
 * Which compose window is open, if any. A tiny external store so anything
 * (a button, a keyboard shortcut, the reading pane) can open it.
 */
import { useSyncExternalStore } from "react";
import type { Draft, Mail } from "@/api";

export type ComposeRequest =
  | { mode: "new"; to?: string }
  | { mode: "reply" | "replyAll" | "forward"; mail: Mail }
  | { mode: "draft"; draft: Draft };

export interface OpenCompose {
  id: number;
  request: ComposeRequest;
}

let current: OpenCompose | null = null;
let counter = 0;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

export function openCompose(request: ComposeRequest): void {
  counter += 1;
  current = { id: counter, request };
  emit();
}

export function closeCompose(): void {
  current = null;
  emit();
}

export function useComposeRequest(): OpenCompose | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
    () => null,
  );
}
