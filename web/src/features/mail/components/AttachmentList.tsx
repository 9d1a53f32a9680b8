import { Icon } from "@/components/Icon";
import { useTranslation } from "react-i18next";
import type { AttachmentRef } from "@/api";
import { formatSize } from "@/lib/format";
import { sdk } from "@/lib/sdk";

/** A mail's attachments with their sizes; each downloads (never opens inline). */
export function AttachmentList({ attachments }: { attachments: AttachmentRef[] }) {
  const { t, i18n } = useTranslation();
  if (attachments.length === 0) return null;
  return (
    <section aria-label={t("mail.attachments")} className="mt-4 border-t border-line pt-3">
      <h3 className="mb-2 text-sm font-semibold">{t("mail.attachmentCount", { count: attachments.length })}</h3>
      <ul className="flex flex-wrap gap-2">
        {attachments.map((a) => (
          <li key={a.attachment_id}>
            <a
              href={sdk.attachmentUrl(a.attachment_id)}
              download={a.filename}
              className="inline-flex min-h-11 items-center gap-2 rounded-md border border-line bg-surface px-3 py-1.5 text-sm hover:bg-raised"
            >
              <Icon name="attachment" />
              <span className="max-w-60 truncate">{a.filename}</span>
              <span className="text-xs text-muted">{formatSize(a.size, i18n.language)}</span>
              <span className="sr-only">{t("mail.download")}</span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
