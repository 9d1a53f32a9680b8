import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "@/app/App";
import { initI18n } from "@/lib/i18n";
import { createQueryClient } from "@/lib/queryClient";
import { followSystemTheme } from "@/lib/theme";
import "./index.css";

followSystemTheme();
const root = document.getElementById("root");
// Painted once the reader's language is at hand (English is; another is fetched).
// Not a top-level await: the lazy chunks import from this one, which could not then
// be a chunk they share.
void initI18n().then(() => {
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <App queryClient={createQueryClient()} />
    </StrictMode>,
  );
});
