import { describe, expect, it } from "vitest";
import { onePerConversation } from "./conversationCards";

describe("onePerConversation", () => {
  it("keeps each conversation's first (newest) mail, in the folder's order", () => {
    const mails = [
      { mail_id: "m5", session_id: "a" },
      { mail_id: "m4", session_id: "b" },
      { mail_id: "m3", session_id: "a" },
      { mail_id: "m2", session_id: "c" },
      { mail_id: "m1", session_id: "b" },
    ];
    expect(onePerConversation(mails).map((m) => m.mail_id)).toEqual(["m5", "m4", "m2"]);
  });

  it("makes 150 mails of one conversation one card", () => {
    const mails = Array.from({ length: 150 }, (_, n) => ({ mail_id: `m${150 - n}`, session_id: "s1" }));
    expect(onePerConversation(mails)).toEqual([{ mail_id: "m150", session_id: "s1" }]);
  });
});
