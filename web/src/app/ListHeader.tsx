import type { ReactNode, RefObject } from "react";
import { useId } from "react";

export interface ListHeaderProps {
  title: string;
  /** The box's accessible name ("Search" over mail, "Filter conversations" over conversations). */
  label: string;
  placeholder: string;
  /** Read to screen readers after the label: what the box understands. */
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
  children?: ReactNode;
}

/** The list's title, its search or filter box (`/` focuses it, Escape clears it) and extra controls. */
export function ListHeader({ title, label, placeholder, hint, value, onChange, inputRef, children }: ListHeaderProps) {
  const id = useId();
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
        placeholder={placeholder}
        aria-describedby={hint ? `${id}-hint` : undefined}
        aria-keyshortcuts="/"
        autoComplete="off"
        spellCheck={false}
        maxLength={1000}
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
