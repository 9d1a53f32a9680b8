import { Icon } from "@/components/Icon";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import { CountBadge } from "@/components/CountBadge";
import { NavLink } from "@/components/NavLink";
import { openCompose } from "@/features/compose/hooks/composeStore";
import { FolderNav } from "@/features/mail/components/FolderNav";
import type { LiveState } from "./useLiveUpdates";
import { aroundFolders, hrefOf, NAV_ITEMS, type NavItem } from "./navItems";

export interface Counts {
  unread?: number | undefined;
  decisions?: number | undefined;
  queue?: number | undefined;
}

export function visibleItems(isAdmin: boolean): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.adminOnly || isAdmin);
}

export interface NavProps {
  active: string;
  counts: Counts;
  isAdmin: boolean;
  /** The folder of my own on screen, if one is. */
  currentFolderId: string | null;
}

/** The wide-screen navigation column; what is between compose and the live state scrolls. */
export function Sidebar({ active, counts, isAdmin, currentFolderId, live }: NavProps & { live: LiveState }) {
  const { t } = useTranslation();
  const [before, after] = aroundFolders(visibleItems(isAdmin));
  const items = (list: NavItem[]) => (
    <ul className="flex flex-col gap-0.5">
      {list.map((item) => {
        const count = item.count ? counts[item.count] : undefined;
        return (
          <li key={item.id}>
            <NavLink
              href={hrefOf(item)}
              current={active === item.id}
              className={`flex min-h-9 items-center gap-2 rounded-md px-2 text-sm ${active === item.id ? "bg-accent-soft font-medium text-accent" : "hover:bg-raised"}`}
            >
              <Icon name={item.icon} />
              {t(item.labelKey)}
              <CountBadge value={count} label={t("nav.countLabel", { count: count ?? 0 })} />
            </NavLink>
          </li>
        );
      })}
    </ul>
  );
  return (
    <nav aria-label={t("nav.label")} className="flex w-56 shrink-0 flex-col gap-1 border-r border-line bg-surface p-3">
      <p className="px-2 pb-2 text-lg font-semibold">{t("app.name")}</p>
      <Button variant="primary" className="mb-2" onClick={() => openCompose({ mode: "new" })} aria-keyshortcuts="c">
        {t("compose.new")}
      </Button>
      <div className="-mx-1 flex min-h-0 flex-1 flex-col gap-1 overflow-y-auto px-1">
        {items(before)}
        <FolderNav currentFolderId={currentFolderId} />
        <div className="mt-2 border-t border-line pt-2">{items(after)}</div>
      </div>
      <p className="px-2 pt-2 text-xs text-muted" role="status">
        {t(`live.${live}`)}
      </p>
    </nav>
  );
}
