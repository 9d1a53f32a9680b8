/**
 * "Move to…": one mail to the inbox, Archive, Trash or a folder of my own, with the
 * calls the API has for each (docs/api.md, "Mail" and "Folders"). A mail is in one
 * of these at a time; filing takes it out of any of them, Trash included.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Mail } from "@/api";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "../api/keys";

export type MoveTarget = "inbox" | "archive" | "trash" | { folderId: string };

/** Where a mail I received is now; null for a mail I only sent (it has no place of mine). */
export function placeOf(mail: Mail): MoveTarget | null {
  if (mail.status == null) return null;
  if (mail.status === "deleted") return "trash";
  if (mail.folder_id) return { folderId: mail.folder_id };
  return mail.status === "archived" ? "archive" : "inbox";
}

export function samePlace(a: MoveTarget | null, b: MoveTarget): boolean {
  if (a === null) return false;
  if (typeof a === "string" || typeof b === "string") return a === b;
  return a.folderId === b.folderId;
}

async function move(mail: Mail, to: MoveTarget): Promise<void> {
  const id = mail.mail_id;
  if (typeof to !== "string") {
    await sdk.fileMail(id, to.folderId);
    return;
  }
  if (to === "trash") {
    await sdk.setMailState(id, "delete");
    return;
  }
  // Out of Trash a mail goes back where it was (the inbox, Archive or its folder);
  // archive and unarchive then take it from there, out of a folder too.
  if (mail.status === "deleted") await sdk.setMailState(id, "restore");
  await sdk.setMailState(id, to === "archive" ? "archive" : "unarchive");
}

export function useMoveMail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ mail, to }: { mail: Mail; to: MoveTarget }) => move(mail, to),
    onSettled: (_result, _error, { mail }) =>
      Promise.all(
        [mailKeys.detail(mail.mail_id), mailKeys.lists(), mailKeys.unreadCount(), mailKeys.folders()].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
}
