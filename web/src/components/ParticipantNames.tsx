import type { ParticipantBrief } from "@/api";
import { PresenceDot } from "./PresenceDot";

/**
 * A conversation's participants as a card shows them: names, with an online
 * dot before each agent (from the list item's `participant_details`, so a
 * card costs no request of its own). `except` leaves me out.
 */
export function ParticipantNames({ participants, except }: { participants: ParticipantBrief[]; except?: string }) {
  const shown = participants.filter((p) => p.name.toLowerCase() !== except?.toLowerCase());
  if (shown.length === 0) return null;
  return (
    <span className="inline-flex max-w-full min-w-0 flex-wrap items-center gap-x-2">
      {shown.map((p) => (
        <span key={p.name} className="inline-flex max-w-full min-w-0 items-center gap-1 wrap-anywhere">
          {p.kind === "agent" ? <PresenceDot online={p.online} /> : null}
          {p.name}
        </span>
      ))}
    </span>
  );
}
