export const draftKeys = {
  all: ["drafts"] as const,
  list: () => [...draftKeys.all, "list"] as const,
};
