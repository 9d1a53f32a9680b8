/** Preferences kept in localStorage; a browser that refuses storage just forgets them. */
export function readPreference(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(`agentmail.${key}`) ?? null;
  } catch {
    return null;
  }
}

export function writePreference(key: string, value: string | null): void {
  try {
    if (value === null) globalThis.localStorage?.removeItem(`agentmail.${key}`);
    else globalThis.localStorage?.setItem(`agentmail.${key}`, value);
  } catch {
    // private mode or quota: the preference lasts for this page only
  }
}
