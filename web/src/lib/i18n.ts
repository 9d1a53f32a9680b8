/**
 * English and Simplified Chinese. The browser's language decides unless the
 * user picked one; every string the user sees goes through `t()`.
 */
import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import en from "@/locales/en.json";
import zh from "@/locales/zh.json";
import { readPreference, writePreference } from "./storage";

export const LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];
export const resources = { en: { translation: en }, zh: { translation: zh } } as const;

export function browserLanguage(): Language {
  const saved = readPreference("language");
  if (saved === "en" || saved === "zh") return saved;
  const wanted = typeof navigator === "undefined" ? [] : (navigator.languages ?? [navigator.language]);
  for (const tag of wanted) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "zh") return "zh";
    if (base === "en") return "en";
  }
  return "en";
}

export function setLanguage(language: Language): void {
  writePreference("language", language);
  void i18n.changeLanguage(language);
}

export function initI18n(language: Language = browserLanguage()) {
  if (!i18n.isInitialized) {
    void i18n.use(initReactI18next).init({
      resources,
      lng: language,
      fallbackLng: "en",
      interpolation: { escapeValue: false }, // React escapes
      returnNull: false,
    });
    i18n.on("languageChanged", (lng) => {
      document.documentElement.lang = lng === "zh" ? "zh-CN" : "en";
    });
    document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  }
  return i18n;
}

export default i18n;
