import { useEffect } from "react";
import { useTranslation } from "react-i18next";

/** "(3) Inbox · AgentMail": the unread count in the tab title. */
export function useDocumentTitle(unread: number | undefined, section: string): void {
  const { t } = useTranslation();
  useEffect(() => {
    const count = unread ? `(${unread}) ` : "";
    document.title = `${count}${section} · ${t("app.name")}`;
  }, [unread, section, t]);
}
