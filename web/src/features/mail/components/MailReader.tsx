/**
 * The reading pane: the mail's header, its actions, the body as sanitised
 * Markdown and its attachments. What belongs to other features (the
 * conversation header, a permission card, the tree) comes in as slots.
 */
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Markdown } from "@/components/Markdown";
import { formatDateTime } from "@/lib/format";
import { AttachmentList } from "./AttachmentList";
import { MailActions, type MailActionsProps } from "./MailActions";
import { MailStatusTag } from "./MailStatusTag";
import { OutsideBanner } from "./OutsideBanner";
import { PartyName } from "@/components/PartyName";

export interface MailReaderProps extends Omit<MailActionsProps, "mail"> {
  mail: Mail;
  conversation?: ReactNode;
  /** Replaces the body, e.g. a permission card for a permission request. */
  body?: ReactNode;
  thread?: ReactNode;
}

export function MailReader({ mail, conversation, body, thread, ...actions }: MailReaderProps) {
  const { t, i18n } = useTranslation();
  return (
    <article aria-labelledby="mail-subject" className="flex flex-col gap-4 p-4 md:p-6">
      {conversation}
      <header className="flex flex-col gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <h2 id="mail-subject" className="min-w-0 max-w-full text-xl font-semibold wrap-anywhere">
            {mail.subject || t("mail.noSubject")}
          </h2>
          <MailStatusTag mail={mail} />
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-sm">
          <dt className="text-muted">{t("mail.from")}</dt>
          <dd className="font-mono break-all" title={mail.from_email}><PartyName address={mail.from} full /></dd>
          <dt className="text-muted">{t("mail.to")}</dt>
          <dd className="font-mono break-all" title={mail.to_email}><PartyName address={mail.to} full /></dd>
          {mail.cc.length > 0 ? (
            <>
              <dt className="text-muted">{t("mail.cc")}</dt>
              <dd className="font-mono break-all">
                {mail.cc.map((address, i) => (
                  <span key={address}>
                    {i > 0 ? ", " : null}
                    <PartyName address={address} full />
                  </span>
                ))}
              </dd>
            </>
          ) : null}
          <dt className="text-muted">{t("mail.date")}</dt>
          <dd>
            <time dateTime={mail.created_at}>{formatDateTime(mail.created_at, i18n.language)}</time>
          </dd>
        </dl>
      </header>
      {mail.outside ? <OutsideBanner mark={mail.outside} /> : null}
      {/* Keyed: a move that failed for one mail is not shown under the next. */}
      <MailActions key={mail.mail_id} mail={mail} {...actions} />
      {body ?? <Markdown text={mail.body ?? mail.body_preview} />}
      <AttachmentList attachments={mail.attachments ?? []} />
      {thread}
    </article>
  );
}
