/** Theme and language: both follow the system unless chosen here. */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { setLanguage, type Language } from "@/lib/i18n";
import { setThemeChoice, themeChoice, type ThemeChoice } from "@/lib/theme";

export function PreferencesForm() {
  const { t, i18n } = useTranslation();
  const ids = { theme: useId(), language: useId() };
  const [theme, setTheme] = useState<ThemeChoice>(themeChoice);
  const select = "min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11";
  return (
    <div className="flex flex-wrap gap-4">
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.theme} className="text-sm font-medium">
          {t("prefs.theme")}
        </label>
        <select
          id={ids.theme}
          className={select}
          value={theme}
          onChange={(e) => {
            const choice = e.target.value as ThemeChoice;
            setTheme(choice);
            setThemeChoice(choice);
          }}
        >
          <option value="system">{t("prefs.system")}</option>
          <option value="light">{t("prefs.light")}</option>
          <option value="dark">{t("prefs.dark")}</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.language} className="text-sm font-medium">
          {t("prefs.language")}
        </label>
        <select
          id={ids.language}
          className={select}
          value={i18n.language === "zh" ? "zh" : "en"}
          onChange={(e) => void setLanguage(e.target.value as Language)}
        >
          <option value="en">English</option>
          <option value="zh">简体中文</option>
        </select>
      </div>
    </div>
  );
}
