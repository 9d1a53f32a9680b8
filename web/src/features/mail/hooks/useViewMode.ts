import { useCallback, useState } from "react";
import { readPreference, writePreference } from "@/lib/storage";

export type ViewMode = "list" | "cards";

/** List or cards, remembered in localStorage. */
export function useViewMode(): [ViewMode, (mode: ViewMode) => void] {
  const [mode, setMode] = useState<ViewMode>(() =>
    readPreference("view") === "cards" ? "cards" : "list",
  );
  const choose = useCallback((next: ViewMode) => {
    writePreference("view", next);
    setMode(next);
  }, []);
  return [mode, choose];
}
