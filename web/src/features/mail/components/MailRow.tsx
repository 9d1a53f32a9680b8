import { useTranslation } from "react-i18next";
import type { ListedMail } from "@/api";
import { MailRowFrame } from "@/components/MailRowFrame";
import { addressName, formatTime, isOutside } from "@/lib/format";
import { MailStatusTag } from "./MailStatusTag";
import { OutsideMark } from "@/components/PartyName";

export interface MailItemProps {
  mail: ListedMail;
  selected: boolean;
  /** Sent mail shows who it went to; everything else who sent it. */
  outgoing?: boolean;
  onOpen: (mail: ListedMail) => void;
  /** Shown as unread; by default when its status says so. */
  unread?: boolean;
}

export function MailRow({ mail, selected, outgoing, onOpen, unread = mail.status === "unread" }: MailItemProps) {
  const { t, i18n } = useTranslation();
  const party = outgoing ? mail.to : mail.from;
  const who = outgoing ? t("mail.toWhom", { name: addressName(party) }) : addressName(party);
  return (
    <MailRowFrame
      mailId={mail.mail_id}
      selected={selected}
      unread={unread}
      onOpen={() => onOpen(mail)}
      firstLine={
        <>
          <span className={`truncate ${unread ? "font-semibold" : ""}`}>{who}</span>
          {isOutside(party) ? <OutsideMark /> : null}
          <span className="ml-auto shrink-0 text-xs text-muted tabular-nums">{formatTime(mail.created_at, i18n.language)}</span>
        </>
      }
    >
      <span className="flex items-center gap-2">
        <span className={`truncate text-sm ${unread ? "font-semibold" : ""}`}>{mail.subject || t("mail.noSubject")}</span>
        <MailStatusTag mail={mail} />
      </span>
      <span className="truncate text-xs text-muted">{mail.excerpt}</span>
    </MailRowFrame>
  );
}
