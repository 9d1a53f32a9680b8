// @vitest-environment node
/**
 * Every key exists in both languages, and every key the code uses exists:
 * a missing translation fails here, not in front of a user.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import en from "@/locales/en.json";
import zh from "@/locales/zh.json";

type Tree = { [key: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/** Keys without plural suffixes: Chinese has only `_other` where English has `_one` too. */
const base = (keys: Iterable<string>) => new Set([...keys].map((k) => k.replace(PLURAL, "")));

const english = flatten(en as Tree);
const chinese = flatten(zh as Tree);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

// Keys built at run time, with every value they can take.
const DYNAMIC: Record<string, string[]> = {
  "account.security.": ["ssl/tls", "starttls", "none"],
  "agentPage.kind.": ["turns", "decisions", "failures"],
  "agentPage.none.": ["turns", "decisions", "failures"],
  "compose.kind.": ["agent", "human", "conversation"],
  "compose.reach.": ["default", "alias", "reply"],
  "compose.title.": ["new", "reply", "replyAll", "forward", "draft"],
  "empty.": ["inbox", "sent", "archive", "trash", "drafts"],
  "keys.": ["permanent", "timed", "one_time"],
  "live.": ["connecting", "live", "retrying"],
  "nav.": ["inbox", "decisions", "sent", "drafts", "archive", "trash", "folders", "conversations", "agents", "admin", "account"],
  "permission.state.": ["open", "decided", "expired"],
  "session.status.": ["active", "waiting", "completed"],
};

function usedKeys(): Set<string> {
  const keys = new Set<string>();
  for (const file of sourceFiles(join(__dirname, ".."))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/\bt\(\s*["'`]([^"'`$]+)(\$\{)?/g)) {
      const [, key = "", dynamic] = match;
      if (dynamic) {
        const values = DYNAMIC[key];
        expect(values, `${file}: dynamic key ${key}\${…} needs its values in DYNAMIC`).toBeDefined();
        for (const v of values ?? []) keys.add(key + v);
      } else keys.add(key);
    }
    for (const match of text.matchAll(/(?:labelKey:\s*|\[\s*"[^"]+",\s*)"((?:nav|shortcuts)\.[A-Za-z]+)"/g)) {
      keys.add(match[1] ?? "");
    }
  }
  return keys;
}

describe("i18n", () => {
  it("has every English key in Chinese", () => {
    const missing = [...base(english.keys())].filter((k) => !base(chinese.keys()).has(k));
    expect(missing).toEqual([]);
  });

  it("has every Chinese key in English", () => {
    const missing = [...base(chinese.keys())].filter((k) => !base(english.keys()).has(k));
    expect(missing).toEqual([]);
  });

  it("has English `_one` and `_other` forms together", () => {
    for (const key of english.keys()) {
      if (key.endsWith("_one")) expect(english.has(key.replace(/_one$/, "_other")), key).toBe(true);
    }
  });

  it("keeps the same {{placeholders}} in both languages", () => {
    const names = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const [key, value] of chinese) {
      const english_value = english.get(key) ?? english.get(key.replace(/_other$/, "_one"));
      if (english_value !== undefined) expect(names(value), key).toEqual(names(english_value));
    }
  });

  it("defines every key the code uses", () => {
    const known = base(english.keys());
    const missing = [...usedKeys()].filter((k) => !known.has(k) && !english.has(k));
    expect(missing).toEqual([]);
  });
});
