/** The classes of a dropdown menu and its rows (Radix's menu; the theme's colours). */
export const MENU_CONTENT =
  "z-50 flex max-h-[min(24rem,var(--radix-dropdown-menu-content-available-height))] w-64 max-w-[calc(100vw-1rem)] flex-col overflow-y-auto rounded-md border border-line bg-surface p-1 text-sm text-ink shadow-lg";
export const MENU_ITEM =
  "flex min-h-9 cursor-default items-center gap-2 rounded px-2 outline-none select-none data-[disabled]:text-muted data-[highlighted]:bg-raised max-md:min-h-11";
export const MENU_LABEL = "flex min-h-7 items-center px-2 text-xs font-medium text-muted";
