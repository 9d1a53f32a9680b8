/**
 * One value at a time that anything may set and any component may read: a tiny
 * external store (React's `useSyncExternalStore`), so the value outlives the view
 * that set it. Each value set gets a new `id`, so a later one is told from an
 * earlier one with the same content. The open compose window and the toast are such.
 */
import { useSyncExternalStore } from "react";

export interface Slot<T> {
  set(value: T): void;
  clear(): void;
  get(): (T & { id: number }) | null;
  use(): (T & { id: number }) | null;
}

export function createSlot<T extends object>(): Slot<T> {
  let current: (T & { id: number }) | null = null;
  let counter = 0;
  const listeners = new Set<() => void>();
  const emit = () => {
    for (const listener of listeners) listener();
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  const get = () => current;
  return {
    set(value) {
      counter += 1;
      current = { ...value, id: counter };
      emit();
    },
    clear() {
      current = null;
      emit();
    },
    get,
    use: () => useSyncExternalStore(subscribe, get, () => null),
  };
}
