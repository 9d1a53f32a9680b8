import { useState } from "react";
import { useTranslation } from "react-i18next";
import { disableNotifications, enableNotifications, notificationsOn, notificationsSupported } from "@/lib/notifications";

/** Turn desktop notifications for new permission requests on or off (asks the browser on click). */
export function NotificationToggle() {
  const { t } = useTranslation();
  const [on, setOn] = useState(notificationsOn);
  if (!notificationsSupported()) return null;
  return (
    <button
      type="button"
      aria-pressed={on}
      className="min-h-8 rounded px-2 text-xs text-accent hover:bg-raised max-md:min-h-11"
      onClick={() => {
        if (on) {
          disableNotifications();
          setOn(false);
        } else void enableNotifications().then(setOn);
      }}
    >
      {on ? t("notify.on") : t("notify.off")}
    </button>
  );
}
