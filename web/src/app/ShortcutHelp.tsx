import { useTranslation } from "react-i18next";
import { Modal } from "@/components/Modal";

export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ["j / k", "shortcuts.nextPrev"],
  ["Enter", "shortcuts.open"],
  ["r", "shortcuts.reply"],
  ["a", "shortcuts.replyAll"],
  ["f", "shortcuts.forward"],
  ["c", "shortcuts.compose"],
  ["e", "shortcuts.archive"],
  ["#", "shortcuts.delete"],
  ["/", "shortcuts.search"],
  ["g n", "shortcuts.queue"],
  ["g i", "shortcuts.inbox"],
  ["g d", "shortcuts.decisions"],
  ["Esc", "shortcuts.close"],
  ["?", "shortcuts.help"],
];

export function ShortcutHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <Modal open={open} onOpenChange={onOpenChange} title={t("shortcuts.title")}>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        {SHORTCUTS.map(([keys, label]) => (
          <div key={keys} className="contents">
            <dt>
              <kbd className="rounded border border-line bg-raised px-1.5 py-0.5 font-mono text-xs">{keys}</kbd>
            </dt>
            <dd>{t(label)}</dd>
          </div>
        ))}
      </dl>
    </Modal>
  );
}
