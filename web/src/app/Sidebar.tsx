import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import { CountBadge } from "@/components/CountBadge";
import { NavLink } from "@/components/NavLink";
import { openCompose } from "@/features/compose/hooks/composeStore";
import type { LiveState } from "./useLiveUpdates";
import { hrefOf, NAV_ITEMS, type NavItem } from "./navItems";

export interface Counts {
  unread?: number | undefined;
  decisions?: number | undefined;
}

export function visibleItems(isAdmin: boolean): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.adminOnly || isAdmin);
}

/** The wide-screen navigation column. */
export function Sidebar({ active, counts, isAdmin, live }: { active: string; counts: Counts; isAdmin: boolean; live: LiveState }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("nav.label")} className="flex w-56 shrink-0 flex-col gap-1 border-r border-line bg-surface p-3">
      <p className="px-2 pb-2 text-lg font-semibold">{t("app.name")}</p>
      <Button variant="primary" className="mb-2" onClick={() => openCompose({ mode: "new" })} aria-keyshortcuts="c">
        {t("compose.new")}
      </Button>
      <ul className="flex flex-col gap-0.5">
        {visibleItems(isAdmin).map((item) => {
          const count = item.count ? counts[item.count] : undefined;
          return (
            <li key={item.id}>
              <NavLink
                href={hrefOf(item)}
                current={active === item.id}
                className={`flex min-h-9 items-center gap-2 rounded-md px-2 text-sm ${active === item.id ? "bg-accent-soft font-medium text-accent" : "hover:bg-raised"}`}
              >
                <span aria-hidden="true">{item.icon}</span>
                {t(item.labelKey)}
                <CountBadge value={count} label={t("nav.countLabel", { count: count ?? 0 })} />
              </NavLink>
            </li>
          );
        })}
      </ul>
      <p className="mt-auto px-2 text-xs text-muted" role="status">
        {t(`live.${live}`)}
      </p>
    </nav>
  );
}
