/**
 * An address input that suggests as you type (agents' workspaces, humans,
 * my named conversations): the ARIA 1.2 combobox pattern, arrows to move,
 * Enter to pick, Escape to close. Every agent workspace is offered first as
 * `….new` (a new conversation), then as itself (its default conversation), so
 * the choice between the two is made where the address is picked. What the
 * person types stays as typed: only a pick changes the field.
 * With `multiple` (Cc) the field holds a list, suggests for the entry being
 * typed (the last one) and a pick replaces only that entry.
 */
import { useId, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { Candidate } from "@/api";
import { lastEntry, replaceLastEntry } from "../addressList";
import type { AddressProblem } from "../hooks/useAddressChecks";
import { useAddressSuggestions } from "../hooks/useAddressSuggestions";

export interface AddressFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  autoFocus?: boolean;
  placeholder?: string;
  /** Several addresses separated by commas; suggestions are for the last one. */
  multiple?: boolean;
  /** The one address's problem (a single field). */
  error?: string | null;
  /** Each undeliverable address's problem (a `multiple` field), listed under it. */
  problems?: readonly AddressProblem[];
  /** Left the field (not by picking a suggestion): the moment to check the address. */
  onLeave?: () => void;
  /** What the address reaches, shown under the field when there is no problem; given `id`. */
  description?: (id: string) => ReactNode;
}

type Option = Pick<Candidate, "address" | "kind" | "description"> & { isNew?: boolean };

/** `builder@ModelRouter.` / `.n` / `.ne` / `.new`: the start of `.new` after an address. */
const NEW_SUFFIX = /\.(?:n(?:e(?:w)?)?)?$/i;

/** What to ask the gateway for: a typed start of `.new` is asked without it (no address has it). */
export function suggestionQuery(typed: string): string {
  return typed.includes("@") && NEW_SUFFIX.test(typed) ? typed.replace(NEW_SUFFIX, "") : typed;
}

/** The candidates with each agent workspace's `.new` before it, matching what is typed. */
export function withNew(candidates: readonly Candidate[], typed: string): Option[] {
  const options: Option[] = candidates.flatMap((c) =>
    c.kind === "agent" ? [{ ...c, address: `${c.address}.new`, isNew: true }, c] : [c],
  );
  if (suggestionQuery(typed) === typed) return options;
  const start = typed.toLowerCase();
  return options.filter((o) => o.address.toLowerCase().startsWith(start));
}

export function AddressField(props: AddressFieldProps) {
  const { label, value, onChange, required, autoFocus, placeholder, multiple, error, problems = [], onLeave, description } = props;
  const { t } = useTranslation();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // Leaving closes the list a moment later (a click on an option lands first);
  // coming back before then keeps it open.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = () => {
    clearTimeout(closing.current);
    setOpen(true);
  };
  const typed = multiple ? lastEntry(value) : value;
  const suggestions = useAddressSuggestions(suggestionQuery(typed), open);
  const options = withNew(suggestions.data ?? [], typed);
  const expanded = open && options.length > 0;
  const listId = `${id}-list`;
  const errorId = `${id}-error`;
  const descriptionId = `${id}-description`;
  const invalid = Boolean(error) || problems.length > 0;
  const described = invalid ? null : (description?.(descriptionId) ?? null);

  function pick(option: Option) {
    onChange(multiple ? replaceLastEntry(value, option.address) : option.address);
    setOpen(false);
    setActive(-1);
  }

  return (
    <div className="relative flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        value={value}
        required={required}
        autoFocus={autoFocus}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && active >= 0 ? `${id}-opt-${active}` : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId : described ? descriptionId : undefined}
        onChange={(e) => {
          onChange(e.target.value);
          show();
          setActive(-1);
        }}
        onFocus={show}
        onBlur={() => {
          closing.current = setTimeout(() => setOpen(false), 120);
          onLeave?.();
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            show();
            setActive((i) => Math.min(options.length - 1, i + 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((i) => Math.max(0, i - 1));
          } else if (e.key === "Enter" && expanded && active >= 0) {
            e.preventDefault();
            const option = options[active];
            if (option) pick(option);
          } else if (e.key === "Escape" && expanded) {
            e.stopPropagation();
            setOpen(false);
          }
        }}
        className="min-h-10 rounded-md border border-line bg-canvas px-2 font-mono text-sm max-md:min-h-11"
      />
      {expanded ? (
        <ul
          id={listId}
          role="listbox"
          aria-label={t("compose.suggestions")}
          className="absolute top-full z-10 mt-1 max-h-72 w-full overflow-y-auto rounded-md border border-line bg-surface shadow-lg"
        >
          {options.map((option, index) => (
            <li
              key={option.address}
              id={`${id}-opt-${index}`}
              role="option"
              aria-selected={index === active}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(option);
              }}
              className={`flex min-h-11 cursor-pointer flex-col justify-center px-3 py-1 ${index === active ? "bg-accent-soft" : "hover:bg-raised"}`}
            >
              <span className="font-mono text-sm wrap-anywhere">{option.address}</span>
              <span className="text-xs text-muted wrap-anywhere">
                {t(`compose.kind.${option.kind}`)}
                {option.isNew ? ` · ${t("compose.newConversation")}` : ""}
                {option.description ? ` · ${option.description}` : ""}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <ul id={listId} role="listbox" hidden aria-label={t("compose.suggestions")} />
      )}
      {error ? (
        <p id={errorId} role="alert" className="text-sm text-danger">
          {error}
        </p>
      ) : problems.length > 0 ? (
        <ul id={errorId} role="alert" className="text-sm text-danger">
          {problems.map((problem) => (
            <li key={problem.address}>
              <span className="font-mono">{problem.address}</span>: {problem.message}
            </li>
          ))}
        </ul>
      ) : (
        described
      )}
    </div>
  );
}
