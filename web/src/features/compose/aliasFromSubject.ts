/**
 * The alias a new conversation would take from its subject, as the gateway makes
 * it (core/mail/naming.py: python-slugify, 64 characters cut at a word, `new`
 * reserved), for subjects in Latin letters. The gateway also transliterates other
 * scripts (`排查登录问题` → `pai-cha-deng-lu-wen-ti`), which is not repeated here:
 * for those this gives null and the gateway names the conversation itself.
 */
const MAX_ALIAS = 64;
const ALIAS = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

export function aliasFromSubject(subject: string): string | null {
  const plain = subject.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  if (/\P{ASCII}/u.test(plain)) return null;
  const slug = cutAtWord(plain.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, ""));
  if (!slug) return null;
  return slug === "new" ? "new-conversation" : slug;
}

/** Whole words while they fit; a first word longer than the limit is cut. */
function cutAtWord(slug: string): string {
  if (slug.length <= MAX_ALIAS) return slug;
  let kept = "";
  for (const word of slug.split("-")) {
    const next = kept ? `${kept}-${word}` : word;
    if (next.length > MAX_ALIAS) return kept || word.slice(0, MAX_ALIAS);
    kept = next;
  }
  return kept;
}

/** Whether the gateway takes `text` as an alias (core/address/): it lower-cases it. */
export function isValidAlias(text: string): boolean {
  return ALIAS.test(text) && text.toLowerCase() !== "new";
}
