/**
 * Light and dark themes: follow the system unless the user picked one. The
 * theme is `data-theme` on <html>; every colour is a CSS variable (index.css).
 */
import { readPreference, writePreference } from "./storage";

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "theme";
const DARK = "(prefers-color-scheme: dark)";

export function themeChoice(): ThemeChoice {
  const saved = readPreference(KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

function systemDark(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia(DARK).matches;
}

export function applyTheme(choice: ThemeChoice = themeChoice()): void {
  const dark = choice === "dark" || (choice === "system" && systemDark());
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

export function setThemeChoice(choice: ThemeChoice): void {
  writePreference(KEY, choice === "system" ? null : choice);
  applyTheme(choice);
}

export function followSystemTheme(): void {
  applyTheme();
  if (typeof window.matchMedia !== "function") return;
  window.matchMedia(DARK).addEventListener("change", () => applyTheme());
}
