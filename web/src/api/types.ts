/** Names for the generated schemas, so callers never spell `components["schemas"][…]`. */
import type { components } from "./schema";

type Schemas = components["schemas"];

export type Mail = Schemas["MailView"];
export type MailList = Schemas["MailList"];
/** A mail as a list row shows it (`GET /me/mail/inbox/rows`): no body, no addresses' email forms. */
export type ListedMail = Schemas["MailRowView"];
export type MailRowList = Schemas["MailRowList"];
export type TreeChunk = Schemas["TreeChunk"];
export type TreeMail = Schemas["TreeMail"];
export type AttachmentRef = Schemas["AttachmentRef"];
export type Attachment = Schemas["AttachmentView"];
export type SendRequest = Schemas["SendRequest"];
export type SendResult = Schemas["SendResult"];
export type ForwardRequest = Schemas["ForwardRequest"];
export type Draft = Schemas["DraftView"];
export type DraftInput = Schemas["DraftInput"];
export type Session = Schemas["SessionView"];
export type LatestMail = Schemas["LatestMail"];
export type ParticipantBrief = Schemas["ParticipantBrief"];
export type SearchHit = Schemas["SearchHit"];
export type SearchResults = Schemas["SearchResults"];
export type AddressCheck = Schemas["AddressCheck"];
export type AddressReach = Schemas["AddressReach"];
export type ReachedConversation = Schemas["ReachedConversation"];
export type MeLimits = Schemas["MeLimits"];
export type MailSettings = Schemas["MailSettings"];
export type MailServer = Schemas["Server"];
export type SessionDetail = Schemas["SessionDetail"];
export type SessionChange = Schemas["SessionChange"];
export type Proposal = Schemas["ProposalView"];
export type Participant = Schemas["ParticipantView"];
export type Candidate = Schemas["Candidate"];
export type Contact = Schemas["Contact"];
export type Agent = Schemas["AgentView"];
export type ActivityItem = Schemas["ActivityItem"];
export type User = Schemas["UserView"];
export type Key = Schemas["KeyView"];
export type IssuedKey = Schemas["IssuedKey"];
export type Decided = Schemas["Decided"];
export type MailFolder = Schemas["FolderView"];
export type FolderDeleted = Schemas["FolderDeleted"];
export type Budget = number | "unlimited";
export type MailStatus = NonNullable<Mail["status"]>;
export type PermissionState = NonNullable<Mail["permission_state"]>;
