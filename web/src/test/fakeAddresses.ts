/**
 * `GET /me/addresses/check` for the fixtures' world: the verdicts and messages
 * of core/mail/delivery_check.py (a send to the same address fails the same way).
 */
import type { AddressCheck } from "@/api";

const DELIVERABLE: Record<string, "agent" | "human"> = {
  "builder@ModelRouter": "agent",
  "builder@ModelRouter.new": "agent",
  "builder@ModelRouter.fix-leak": "agent",
  "jianf@": "human",
  "jianf@.fix-leak": "human",
  "ana@": "human",
};

export function checkAddress(address: string): AddressCheck {
  const verdict = (error: AddressCheck["error"], native: string | null = address): AddressCheck => ({
    address, deliverable: error === null, native, email: native ? `${native.split("@")[0]}@agentmail.localhost` : null,
    kind: DELIVERABLE[address] ?? null, error,
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
