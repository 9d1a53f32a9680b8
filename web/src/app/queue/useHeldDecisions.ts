/**
 * The page's held decisions: sent when their window ends, when the page is left
 * (the view unmounts) or when the tab closes; the browser asks before closing
 * while one is held.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { API_PREFIX } from "@/api";
import { permissionKeys } from "@/features/approvals/api/keys";
import { sdk } from "@/lib/sdk";
import { heldDecisions, undoWindowMs, type HeldDecision, type HeldDecisions } from "@/lib/heldDecisions";

/** A request that outlives the page (fetch `keepalive`), for a tab being closed. */
function sendOnUnload(held: HeldDecision): void {
  void fetch(`${API_PREFIX}/me/permission/decide`, {
    method: "POST",
    keepalive: true,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mail_id: held.mailId, decision: held.decision, note: held.note || null }),
  }).catch(() => undefined);
}

export function useHeldDecisions(): { store: HeldDecisions; held: HeldDecision[] } {
  const queryClient = useQueryClient();
  const [store] = useState(() =>
    heldDecisions(async (held) => {
      try {
        await sdk.decide(held.mailId, held.decision, held.note);
      } finally {
        void queryClient.invalidateQueries({ queryKey: permissionKeys.all });
      }
    }, undoWindowMs()),
  );
  const held = useSyncExternalStore(store.subscribe, store.held, store.held);

  useEffect(() => {
    const ask = (event: BeforeUnloadEvent) => {
      if (store.held().length === 0) return;
      event.preventDefault();
      event.returnValue = ""; // older Chromium needs it to show the prompt
    };
    const leave = () => {
      for (const decision of store.held()) {
        store.undo(decision.mailId);
        sendOnUnload(decision);
      }
    };
    window.addEventListener("beforeunload", ask);
    window.addEventListener("pagehide", leave);
    return () => {
      window.removeEventListener("beforeunload", ask);
      window.removeEventListener("pagehide", leave);
      store.flush(); // leaving the view sends what it held
    };
  }, [store]);
  return { store, held };
}
