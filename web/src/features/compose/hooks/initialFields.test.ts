import { describe, expect, it } from "vitest";
import { base } from "@/test/fixtures";
import { initialFields } from "./initialFields";

const mail = { ...base, created_at: "2026-03-09T14:05:00Z", body: "First line\nsecond" };

describe("a reply's quote", () => {
  it.each(["en", "zh"])("says when the mail was written in the reader's locale (%s), never as raw ISO", (language) => {
    const { body } = initialFields({ mode: "reply", mail }, "someone-else", language);
    const when = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(mail.created_at));
    expect(body).toContain(`${mail.from} (${when}):\n> First line\n> second`);
    expect(body).not.toContain("2026-03-09T");
  });
});
