/** Narrow screens: the main places within thumb reach, the rest in a drawer. */
import { Icon } from "@/components/Icon";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CountBadge } from "@/components/CountBadge";
import { Modal } from "@/components/Modal";
import { NavLink } from "@/components/NavLink";
import { openCompose } from "@/features/compose/hooks/composeStore";
import { FolderNav } from "@/features/mail/components/FolderNav";
import { aroundFolders, hrefOf, NAV_ITEMS, type NavItem } from "./navItems";
import { visibleItems, type NavProps } from "./Sidebar";

// Needs you lists the open requests, so Needs decision waits in "More" on a phone.
const PRIMARY = ["queue", "inbox", "conversations"];

export function BottomNav({ active, counts, isAdmin, currentFolderId }: NavProps) {
  const { t } = useTranslation();
  const [drawer, setDrawer] = useState(false);
  const [before, after] = aroundFolders(visibleItems(isAdmin).filter((item) => !PRIMARY.includes(item.id)));
  const items = (list: NavItem[]) => (
    <ul className="flex flex-col">
      {list.map((item) => (
        <li key={item.id}>
          <NavLink
            href={hrefOf(item)}
            current={active === item.id}
            onNavigate={() => setDrawer(false)}
            className={`flex min-h-12 items-center gap-3 rounded-md px-3 ${active === item.id ? "bg-accent-soft text-accent" : "hover:bg-raised"}`}
          >
            <Icon name={item.icon} className="size-5" />
            {t(item.labelKey)}
          </NavLink>
        </li>
      ))}
    </ul>
  );
  // Each cell as wide as its label needs, the rest shared: "Conversations" fits at 320 px.
  const cell = "relative flex min-h-14 min-w-11 flex-auto flex-col items-center justify-center gap-0.5 px-1 text-center text-xs leading-tight";
  return (
    <nav
      aria-label={t("nav.label")}
      className="flex shrink-0 border-t border-line bg-surface pb-[env(safe-area-inset-bottom)]"
    >
      {NAV_ITEMS.filter((item) => PRIMARY.includes(item.id)).map((item) => {
        const count = item.count ? counts[item.count] : undefined;
        return (
          <NavLink key={item.id} href={hrefOf(item)} current={active === item.id} className={`${cell} ${active === item.id ? "text-accent" : "text-muted"}`}>
            <Icon name={item.icon} className="size-5" />
            {t(item.labelKey)}
            {/* On the icon's corner, not beside the label: the label keeps the cell's width. */}
            <span className="absolute top-1 left-1/2 ml-1.5 flex">
              <CountBadge value={count} label={t("nav.countLabel", { count: count ?? 0 })} />
            </span>
          </NavLink>
        );
      })}
      <button type="button" className={`${cell} text-muted`} onClick={() => openCompose({ mode: "new" })}>
        <Icon name="compose" className="size-5" />
        {t("compose.new")}
      </button>
      <button type="button" className={`${cell} text-muted`} onClick={() => setDrawer(true)} aria-haspopup="dialog">
        <Icon name="menu" className="size-5" />
        {t("nav.more")}
      </button>
      <Modal open={drawer} onOpenChange={setDrawer} title={t("nav.more")}>
        {items(before)}
        <FolderNav currentFolderId={currentFolderId} onNavigate={() => setDrawer(false)} />
        <div className="mt-2 border-t border-line pt-2">{items(after)}</div>
      </Modal>
    </nav>
  );
}
