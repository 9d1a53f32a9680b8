export type RequestState = "open" | "decided" | "expired";

export const permissionKeys = {
  all: ["permissions"] as const,
  list: (state: RequestState) => [...permissionKeys.all, state] as const,
};
