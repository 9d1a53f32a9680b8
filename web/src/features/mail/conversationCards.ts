/**
 * Cards show conversations, not mails: of a folder's mails (newest first, as every
 * folder lists them) each conversation keeps its first, so 150 mails of one
 * conversation are one card, and opening it opens the conversation's newest mail
 * in the folder.
 */
export function onePerConversation<T extends { session_id: string }>(mails: T[]): T[] {
  const seen = new Set<string>();
  return mails.filter((mail) => !seen.has(mail.session_id) && Boolean(seen.add(mail.session_id)));
}
