/**
 * The two dropdown menus (Move to…, a folder's "…"), loaded when first drawn: Radix's
 * menu and its positioning (floating-ui) are a tenth of the first page's JavaScript,
 * and neither menu is on the first page of a new desk. Until the code arrives, a
 * stand-in of the same size holds the place (a disabled "Move to…", an empty square).
 */
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import type { FolderActionsProps } from "./FolderActions";
import type { MoveToMenuProps } from "./MoveToMenu";

const MoveToMenuMenu = lazy(() => import("./MoveToMenu").then((m) => ({ default: m.MoveToMenu })));
const FolderActionsMenu = lazy(() => import("./FolderActions").then((m) => ({ default: m.FolderActions })));

export function MoveToMenu(props: MoveToMenuProps) {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Button disabled>{t("move.label")}</Button>}>
      <MoveToMenuMenu {...props} />
    </Suspense>
  );
}

export function FolderActions(props: FolderActionsProps) {
  return (
    <Suspense fallback={<span aria-hidden="true" className="inline-flex size-8 shrink-0 max-md:size-11" />}>
      <FolderActionsMenu {...props} />
    </Suspense>
  );
}
