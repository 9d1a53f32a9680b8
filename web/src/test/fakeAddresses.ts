/**
 * `GET /me/addresses/check` for the fixtures' world: the verdicts and messages
 * of core/mail/delivery_check.py (a send to the same address fails the same way),
 * and where each deliverable address leads: jianf's default conversation with
 * builder@ModelRouter exists ("Weekly report", 6 of 20 rounds left), `.fix-leak`
 * is the fixtures' conversation s1, and a reply (`reply_to`) goes to s1.
 */
import type { AddressCheck, AddressReach, ReachedConversation } from "@/api";
import { session } from "./fixtures";

export const defaultConversation: ReachedConversation = {
  session_id: "s0", session_alias: "weekly-report", subject: "Weekly report", status: "active",
  budget_limit: 20, budget_used: 14, budget_remaining: 6,
};
const fixLeak: ReachedConversation = {
  session_id: session.session_id, session_alias: session.session_alias, subject: session.subject, status: session.status,
  budget_limit: session.budget_limit, budget_used: session.budget_used, budget_remaining: session.budget_remaining,
};

function reachOf(address: string, replyTo: string | null): AddressReach {
  if (address.endsWith(".new")) return { by: "new", conversation: null };
  if (address.endsWith(".fix-leak")) return { by: "alias", conversation: fixLeak };
  if (replyTo) return { by: "reply", conversation: fixLeak };
  return { by: "default", conversation: address === "builder@ModelRouter" ? defaultConversation : null };
}

const DELIVERABLE: Record<string, "agent" | "human"> = {
  "builder@ModelRouter": "agent",
  "builder@ModelRouter.new": "agent",
  "builder@ModelRouter.fix-leak": "agent",
  "jianf@": "human",
  "jianf@.fix-leak": "human",
  "ana@": "human",
};

export function checkAddress(address: string, replyTo: string | null = null): AddressCheck {
  const verdict = (error: AddressCheck["error"], native: string | null = address): AddressCheck => ({
    address, deliverable: error === null, native, email: native ? `${native.split("@")[0]}@agentmail.localhost` : null,
    kind: DELIVERABLE[address] ?? null, error, reaches: error === null ? reachOf(address, replyTo) : null,
  });
  if (DELIVERABLE[address]) return verdict(null);
  const at = address.indexOf("@");
  if (at < 0) return verdict({ code: "invalid_address", message: `no '@' in '${address}': an address is name@path.session` }, null);
  const name = address.slice(0, at).toLowerCase();
  if (name === "builder") {
    const workspace = address.slice(at + 1).split(".")[0];
    return verdict({ code: "unknown_workspace", message: `undeliverable: agent 'builder' has no workspace '${workspace}'; its workspaces: ModelRouter (/home/u/ModelRouter)` });
  }
  return verdict({ code: "unknown_recipient", message: `undeliverable: nobody is called '${name}'` });
}
