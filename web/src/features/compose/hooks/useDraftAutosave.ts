/**
 * Drafts saved as you type, through the Drafts API: the same draft appears in
 * the IMAP Drafts folder. The first save creates it, later ones replace it.
 */
import { useEffect, useRef, useState } from "react";
import type { DraftInput } from "@/api";
import { sdk } from "@/lib/sdk";

export type SaveState = "idle" | "saving" | "saved" | "failed";
const DELAY = 1500;

export function useDraftAutosave(input: DraftInput | null, initialId: string | null) {
  const [draftId, setDraftId] = useState<string | null>(initialId);
  const [state, setState] = useState<SaveState>("idle");
  const idRef = useRef<string | null>(initialId);
  const inFlight = useRef<Promise<unknown>>(Promise.resolve());
  const serialized = input ? JSON.stringify(input) : null;
  const first = useRef(serialized);

  useEffect(() => {
    if (!serialized || serialized === first.current) return;
    const timer = setTimeout(() => {
      const body = JSON.parse(serialized) as DraftInput;
      setState("saving");
      inFlight.current = inFlight.current
        .then(async () => {
          if (idRef.current) await sdk.saveDraft(idRef.current, body);
          else {
            const created = await sdk.createDraft(body);
            idRef.current = created.draft_id;
            setDraftId(created.draft_id);
          }
          setState("saved");
        })
        .catch(() => setState("failed"));
    }, DELAY);
    return () => clearTimeout(timer);
  }, [serialized]);

  /** Wait for a save in flight, then forget the draft (after a send, or discard). */
  async function discard(): Promise<void> {
    await inFlight.current;
    const id = idRef.current;
    idRef.current = null;
    first.current = serialized;
    if (id) await sdk.deleteDraft(id).catch(() => undefined);
  }

  return { draftId, state, discard };
}
