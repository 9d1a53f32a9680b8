/**
 * Decisions held for an undo window before they are sent. A person deciding from
 * the keyboard decides fast; a wrong key is taken back within the window and the
 * request stays open, as if nothing had been pressed.
 */

export const UNDO_WINDOW_MS = 5_000;

export interface HeldDecision {
  mailId: string;
  decision: string;
  note: string;
}

type Send = (held: HeldDecision) => Promise<unknown>;

export interface HeldDecisions {
  /** Hold a decision; it is sent when the window ends (a second one for the same request replaces it). */
  hold(held: HeldDecision): void;
  /** Take a held decision back; false when it was already sent. */
  undo(mailId: string): boolean;
  /** Send every held decision now (leaving the page, closing the tab). */
  flush(): void;
  held(): HeldDecision[];
  subscribe(listener: () => void): () => void;
}

export function heldDecisions(send: Send, windowMs: number = UNDO_WINDOW_MS): HeldDecisions {
  const waiting = new Map<string, { held: HeldDecision; timer: ReturnType<typeof setTimeout> }>();
  const listeners = new Set<() => void>();
  let snapshot: HeldDecision[] = [];
  const changed = () => {
    snapshot = [...waiting.values()].map((entry) => entry.held);
    for (const listener of listeners) listener();
  };
  const release = (mailId: string) => {
    const entry = waiting.get(mailId);
    if (!entry) return;
    clearTimeout(entry.timer);
    waiting.delete(mailId);
    changed();
    // A refused decision (expired, decided elsewhere) reaches the page through the stream.
    void send(entry.held).catch(() => undefined);
  };
  return {
    hold(held) {
      const old = waiting.get(held.mailId);
      if (old) clearTimeout(old.timer);
      waiting.set(held.mailId, { held, timer: setTimeout(() => release(held.mailId), windowMs) });
      changed();
    },
    undo(mailId) {
      const entry = waiting.get(mailId);
      if (!entry) return false;
      clearTimeout(entry.timer);
      waiting.delete(mailId);
      changed();
      return true;
    },
    flush() {
      for (const mailId of [...waiting.keys()]) release(mailId);
    },
    held: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The window in use: 5 s, unless a test page set `localStorage["agentmail.undoWindowMs"]`. */
export function undoWindowMs(): number {
  const set = Number(globalThis.localStorage?.getItem("agentmail.undoWindowMs"));
  return Number.isFinite(set) && set > 0 ? set : UNDO_WINDOW_MS;
}
