/**
 * What a mail shows instead of an image: a placeholder naming the image's host.
 * Images are never fetched: a remote image tells its sender that, when and where
 * the mail was read, and the content security policy refuses them anyway.
 */
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";

function hostOf(src: string | undefined): string | null {
  if (!src) return null;
  try {
    return new URL(src, window.location.href).host || null;
  } catch {
    return null;
  }
}

export function BlockedImage({ src, alt }: { src?: string | undefined; alt?: string | undefined }) {
  const { t } = useTranslation();
  const host = hostOf(src);
  return (
    <span
      data-blocked-image=""
      title={src}
      className="inline-flex max-w-full items-center gap-1.5 rounded-md border border-dashed border-line px-2 py-1 align-middle text-xs text-muted"
    >
      <Icon name="imageBlocked" />
      <span className="min-w-0 wrap-anywhere">
        {host ? t("mail.imageBlocked", { host }) : t("mail.imageBlockedNoHost")}
        {alt ? ` · ${alt}` : null}
      </span>
    </span>
  );
}
