import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { heldDecisions, type HeldDecision, UNDO_WINDOW_MS, undoWindowMs } from "./heldDecisions";

describe("held decisions", () => {
  let sent: HeldDecision[];
  const send = (held: HeldDecision) => {
    sent.push(held);
    return Promise.resolve();
  };
  beforeEach(() => {
    sent = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("sends a decision only when the window ends", () => {
    const store = heldDecisions(send);
    store.hold({ mailId: "m1", decision: "approve", note: "ok" });
    vi.advanceTimersByTime(UNDO_WINDOW_MS - 1);
    expect(sent).toEqual([]);
    expect(store.held().map((h) => h.mailId)).toEqual(["m1"]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([{ mailId: "m1", decision: "approve", note: "ok" }]);
    expect(store.held()).toEqual([]);
  });

  it("never sends an undone decision", () => {
    const store = heldDecisions(send);
    store.hold({ mailId: "m1", decision: "reject", note: "" });
    expect(store.undo("m1")).toBe(true);
    vi.advanceTimersByTime(UNDO_WINDOW_MS * 2);
    expect(sent).toEqual([]);
    expect(store.undo("m1")).toBe(false);
  });

  it("sends everything held at once when the page is left", () => {
    const store = heldDecisions(send);
    store.hold({ mailId: "m1", decision: "approve", note: "" });
    store.hold({ mailId: "m2", decision: "reject", note: "no" });
    store.flush();
    expect(sent.map((h) => h.mailId)).toEqual(["m1", "m2"]);
    vi.advanceTimersByTime(UNDO_WINDOW_MS);
    expect(sent).toHaveLength(2);
  });

  it("keeps one decision per request: the last one, with a fresh window", () => {
    const store = heldDecisions(send, 1000);
    store.hold({ mailId: "m1", decision: "approve", note: "" });
    vi.advanceTimersByTime(800);
    store.hold({ mailId: "m1", decision: "reject", note: "" });
    vi.advanceTimersByTime(800);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(sent).toEqual([{ mailId: "m1", decision: "reject", note: "" }]);
  });

  it("tells its listeners what changed", () => {
    const store = heldDecisions(send);
    const listener = vi.fn();
    const stop = store.subscribe(listener);
    store.hold({ mailId: "m1", decision: "approve", note: "" });
    store.undo("m1");
    stop();
    store.hold({ mailId: "m2", decision: "approve", note: "" });
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it("uses 5 seconds unless a test page shortens it", () => {
    localStorage.removeItem("agentmail.undoWindowMs");
    expect(undoWindowMs()).toBe(5000);
    localStorage.setItem("agentmail.undoWindowMs", "300");
    expect(undoWindowMs()).toBe(300);
    localStorage.removeItem("agentmail.undoWindowMs");
  });
});
