import { describe, expect, it } from "vitest";
import { lastEntry, replaceLastEntry, splitAddresses } from "./addressList";

describe("an address list", () => {
  it.each([
    ["", ""],
    ["bui", "bui"],
    ["ana@, bui", "bui"],
    ["ana@,bui", "bui"],
    ["ana@; jianf@ bu", "bu"],
    ["ana@, ", ""],
  ])("in %j, the entry being typed is %j", (text, entry) => {
    expect(lastEntry(text)).toBe(entry);
  });

  it.each([
    ["", "ana@", "ana@, "],
    ["bui", "builder@ModelRouter", "builder@ModelRouter, "],
    ["ana@, bui", "builder@ModelRouter", "ana@, builder@ModelRouter, "],
    ["ana@,bui", "builder@ModelRouter", "ana@,builder@ModelRouter, "],
    ["ana@, ", "jianf@", "ana@, jianf@, "],
  ])("picking for %j with %j gives %j", (text, address, result) => {
    expect(replaceLastEntry(text, address)).toBe(result);
  });

  it("splits on the separators the send uses and drops empty entries", () => {
    expect(splitAddresses(" ana@,, jianf@; builder@ModelRouter , ")).toEqual(["ana@", "jianf@", "builder@ModelRouter"]);
  });
});
