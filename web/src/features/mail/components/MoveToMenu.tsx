/**
 * "Move to…": the inbox, Archive, Trash and the folders of my own, as a menu (Radix:
 * arrow keys, typing a name's first letters, Escape, focus back on the button). The
 * place the mail is in now is marked and cannot be chosen. Folders are indented as
 * in the navigation, showing their last level; each one's accessible name is its
 * whole name (`Projects/2026`), and a parent that is only a prefix is a label.
 */
import { Icon } from "@/components/Icon";
import * as Menu from "@radix-ui/react-dropdown-menu";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Button } from "@/components/Button";
import { foldersQuery } from "../api/queries";
import { flatFolderTree, folderTree } from "../folderTree";
import { placeOf, samePlace, type MoveTarget } from "../hooks/useMoveMail";
import { MENU_CONTENT, MENU_ITEM, MENU_LABEL } from "./menuStyles";

const INDENT = ["pl-2", "pl-5", "pl-8", "pl-11"];
const PLACES = ["inbox", "archive", "trash"] as const;

export interface MoveToMenuProps {
  mail: Mail;
  onMove: (to: MoveTarget) => void;
  disabled?: boolean;
}

export function MoveToMenu({ mail, onMove, disabled }: MoveToMenuProps) {
  const { t } = useTranslation();
  const folders = useQuery(foldersQuery());
  const rows = useMemo(() => flatFolderTree(folderTree(folders.data ?? [])), [folders.data]);
  const here = placeOf(mail);
  // Each row's name is said whole (its visible text is the last level, and a mark).
  const nameOf = (name: string, isHere: boolean) => (isHere ? t("move.here", { name }) : name);
  const check = (
    <Icon name="check" className="ml-auto size-4 text-accent" />
  );
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild disabled={disabled}>
        <Button>{t("move.label")}</Button>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content align="start" sideOffset={4} collisionPadding={8} className={MENU_CONTENT}>
          {PLACES.map((place) => {
            const isHere = samePlace(here, place);
            return (
              <Menu.Item
                key={place}
                className={MENU_ITEM}
                disabled={isHere}
                aria-label={nameOf(t(`nav.${place}`), isHere)}
                onSelect={() => onMove(place)}
              >
                {t(`nav.${place}`)}
                {isHere ? check : null}
              </Menu.Item>
            );
          })}
          {rows.length > 0 ? (
            <>
              <Menu.Separator className="my-1 h-px shrink-0 bg-line" />
              <Menu.Label className={`${MENU_LABEL} tracking-wide uppercase`}>{t("nav.folders")}</Menu.Label>
            </>
          ) : null}
          {rows.map(({ node, depth }) => {
            const indent = INDENT[Math.min(depth, INDENT.length - 1)];
            const { folder } = node;
            if (!folder) {
              return (
                <Menu.Label key={node.path} className={`${MENU_ITEM} text-muted ${indent}`} title={node.path}>
                  <Icon name="folderOpen" />
                  <span className="truncate">{node.label}</span>
                </Menu.Label>
              );
            }
            const target = { folderId: folder.folder_id };
            const isHere = samePlace(here, target);
            return (
              <Menu.Item
                key={node.path}
                className={`${MENU_ITEM} ${indent}`}
                disabled={isHere}
                textValue={node.label}
                title={node.path}
                aria-label={nameOf(node.path, isHere)}
                onSelect={() => onMove(target)}
              >
                <Icon name="folder" />
                <span className="truncate">{node.label}</span>
                {isHere ? check : null}
              </Menu.Item>
            );
          })}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
