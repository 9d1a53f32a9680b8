import type { ReactNode, RefObject } from "react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useNarrow } from "@/lib/useMediaQuery";

export interface ListHeaderProps {
  title: string;
  /** The box's accessible name ("Search" over mail, "Filter conversations" over conversations). */
  label: string;
  /** What the box is for ("Search mail"); at a keyboard it also says that `/` focuses it. */
  placeholder: string;
  /** The longest text the box takes: the API's bound on what it is sent to. */
  maxLength: number;
  /** Read to screen readers after the label: what the box understands. */
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
  children?: ReactNode;
}

/** The list's title, its search or filter box (`/` focuses it, Escape clears it) and extra controls. */
export function ListHeader({ title, label, placeholder, maxLength, hint, value, onChange, inputRef, children }: ListHeaderProps) {
  const { t } = useTranslation();
  const id = useId();
  // A phone has no `/` key to press: the hint is for keyboards.
  const narrow = useNarrow();
  return (
    <header className="flex flex-col gap-2 border-b border-line p-3">
      <div className="flex items-center gap-2">
        <h1 className="min-w-0 truncate text-lg font-semibold" title={title}>
          {title}
        </h1>
        <span className="ml-auto shrink-0">{children}</span>
      </div>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input
        id={id}
        ref={inputRef}
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== "Escape") return;
          // The first Escape clears, the next one leaves the box (and the list's shortcuts work again).
          e.preventDefault();
          if (value) onChange("");
          else e.currentTarget.blur();
        }}
        placeholder={narrow ? placeholder : t("search.withKey", { placeholder })}
        aria-describedby={hint ? `${id}-hint` : undefined}
        aria-keyshortcuts="/"
        autoComplete="off"
        spellCheck={false}
        maxLength={maxLength}
        className="min-h-9 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
      />
      {hint ? (
        <span id={`${id}-hint`} className="sr-only">
          {hint}
        </span>
      ) : null}
    </header>
  );
}
