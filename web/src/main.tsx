import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "@/app/App";
import { initI18n } from "@/lib/i18n";
import { createQueryClient } from "@/lib/queryClient";
import { followSystemTheme } from "@/lib/theme";
import "./index.css";

followSystemTheme();
initI18n();
const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App queryClient={createQueryClient()} />
    </StrictMode>,
  );
}
