import { describe, expect, it } from "vitest";
import { aliasFromSubject, isValidAlias } from "./aliasFromSubject";

describe("the alias made from a subject", () => {
  // The gateway's own answers (core/mail/naming.py alias_from_subject).
  it.each([
    ["Fix the leak", "fix-the-leak"],
    ["Don't stop: v1.5 release!", "don-t-stop-v1-5-release"],
    ["Crème brûlée", "creme-brulee"],
    ["new", "new-conversation"],
    ["  --Hello__World--  ", "hello-world"],
    ["x".repeat(80), "x".repeat(64)],
    ["word ".repeat(20), Array(13).fill("word").join("-")],
  ])("%j → %j", (subject, alias) => {
    expect(aliasFromSubject(subject)).toBe(alias);
    expect(isValidAlias(alias)).toBe(true);
  });

  it("leaves other scripts and empty subjects to the gateway", () => {
    expect(aliasFromSubject("排查登录问题")).toBeNull();
    expect(aliasFromSubject("Fix 修复 leak")).toBeNull();
    expect(aliasFromSubject("!!!")).toBeNull();
  });
});

describe("an alias typed by hand", () => {
  it.each(["fix-leak", "Fix_Leak", "a", "9lives", "x".repeat(64)])("takes %j", (alias) => {
    expect(isValidAlias(alias)).toBe(true);
  });
  it.each(["", "new", "NEW", "-lead", "has space", "dot.ted", "x".repeat(65), "ünï"])("refuses %j", (alias) => {
    expect(isValidAlias(alias)).toBe(false);
  });
});
