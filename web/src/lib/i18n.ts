/**
 * English and Simplified Chinese. The browser's language decides unless the
 * user picked one; every string the user sees goes through `t()`.
 *
 * English ships with the page; another language is fetched the first time it is
 * chosen (each is as large as English, and most visitors read one): the page
 * waits for it before its first paint (`main.tsx`), so nobody sees a flash of
 * the other language.
 */
import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import en from "@/locales/en.json";
import { readPreference, writePreference } from "./storage";

export const LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];
/** A language's strings: nested objects of text (plural forms differ between languages). */
type Translation = { [key: string]: string | Translation };

const loaders: Record<Exclude<Language, "en">, () => Promise<{ default: Translation }>> = {
  zh: () => import("@/locales/zh.json"),
};
// The languages at hand, by the time `initI18n` runs or since (see `addLanguage`).
const bundles: Partial<Record<Language, Translation>> = { en };

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

/** A language's strings, at hand from now on (tests add every language up front). */
export function addLanguage(language: Language, bundle: Translation): void {
  bundles[language] = bundle;
  if (i18n.isInitialized) i18n.addResourceBundle(language, "translation", bundle, true, true);
}

async function load(language: Language): Promise<void> {
  if (bundles[language]) return;
  if (language === "en") return;
  addLanguage(language, (await loaders[language]()).default);
}

export async function setLanguage(language: Language): Promise<void> {
  writePreference("language", language);
  await load(language);
  await i18n.changeLanguage(language);
}

/** Set up once; resolves when `language` is loaded and in use. */
export async function initI18n(language: Language = browserLanguage()): Promise<typeof i18n> {
  if (!i18n.isInitialized) {
    const resources = Object.fromEntries(Object.entries(bundles).map(([lng, bundle]) => [lng, { translation: bundle }]));
    void i18n.use(initReactI18next).init({
      resources,
      lng: bundles[language] ? language : "en",
      fallbackLng: "en",
      interpolation: { escapeValue: false }, // React escapes
      returnNull: false,
    });
    i18n.on("languageChanged", (lng) => {
      document.documentElement.lang = lng === "zh" ? "zh-CN" : "en";
    });
    document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  }
  if (i18n.language !== language) {
    await load(language);
    await i18n.changeLanguage(language);
  }
  return i18n;
}

export default i18n;
