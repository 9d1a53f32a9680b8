/** An agent's question I have not answered, with the reply editor open under it. */
import type { Mail } from "@/api";
import { PartyName } from "@/components/PartyName";
import { QuickReply } from "@/features/compose/components/QuickReply";
import { navigate } from "@/lib/router";

export function QueueQuestion({ mail, me }: { mail: Mail; me: string }) {
  return (
    <article className="flex min-w-0 flex-col gap-1 rounded-lg border border-line bg-surface p-3" data-testid="queue-question">
      <header className="flex min-w-0 flex-wrap items-baseline gap-2 text-sm text-muted">
        <span className="min-w-0 font-medium text-ink wrap-anywhere"><PartyName address={mail.from} /></span>
        {mail.session_alias ? <span className="min-w-0 wrap-anywhere">#{mail.session_alias}</span> : null}
      </header>
      <a
        href={`/inbox/${encodeURIComponent(mail.mail_id)}`}
        onClick={(e) => {
          e.preventDefault();
          navigate(`/inbox/${encodeURIComponent(mail.mail_id)}`);
        }}
        className="font-semibold wrap-anywhere hover:underline"
      >
        {mail.subject}
      </a>
      {mail.body_preview ? <p className="line-clamp-3 text-sm wrap-anywhere">{mail.body_preview}</p> : null}
      <QuickReply mail={mail} me={me} focus={false} />
    </article>
  );
}
