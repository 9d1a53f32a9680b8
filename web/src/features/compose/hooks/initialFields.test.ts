import { describe, expect, it } from "vitest";
import { base } from "@/test/fixtures";
import { initialFields } from "./initialFields";

const fromOutside = { ...base, from: "mailto:bob@example.com", to: "ana@", cc: ["builder@ModelRouter", "mailto:eve@example.org"] };

describe("replies to imported mail from outside the gateway", () => {
  it("reply goes to the gateway's own participant, the outside sender named", () => {
    const fields = initialFields({ mode: "reply", mail: fromOutside }, "ana");
    expect(fields.to).toBe("builder@ModelRouter");
    expect(fields.cc).toEqual([]);
    expect(fields.outside).toEqual(["mailto:bob@example.com"]);
    expect(fields.body).toContain("bob@example.com (");
    expect(fields.body).not.toContain("mailto:");
  });

  it("reply-all keeps the internal participants and leaves every outside one out", () => {
    const fields = initialFields({ mode: "replyAll", mail: { ...fromOutside, cc: ["mailto:eve@example.org", "pi@root", "builder@ModelRouter"] } }, "ana");
    expect(fields.to).toBe("pi@root");
    expect(fields.cc).toEqual(["builder@ModelRouter"]);
    expect(fields.outside).toEqual(["mailto:bob@example.com", "mailto:eve@example.org"]);
  });

  it("nobody internal but me: an empty To", () => {
    const fields = initialFields({ mode: "reply", mail: { ...fromOutside, cc: [] } }, "ana");
    expect(fields.to).toBe("");
    expect(fields.outside).toEqual(["mailto:bob@example.com"]);
  });

  it("a reply to a gateway sender is as before", () => {
    const fields = initialFields({ mode: "reply", mail: { ...base, from: "builder@ModelRouter", to: "ana@", cc: ["mailto:eve@example.org"] } }, "ana");
    expect(fields.to).toBe("builder@ModelRouter");
    expect(fields.outside).toEqual([]);
  });
});

const mail = { ...base, created_at: "2026-03-09T14:05:00Z", body: "First line\nsecond" };

describe("a reply's quote", () => {
  it.each(["en", "zh"])("says when the mail was written in the reader's locale (%s), never as raw ISO", (language) => {
    const { body } = initialFields({ mode: "reply", mail }, "someone-else", language);
    const when = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(mail.created_at));
    expect(body).toContain(`${mail.from} (${when}):\n> First line\n> second`);
    expect(body).not.toContain("2026-03-09T");
  });
});
