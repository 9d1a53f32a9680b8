/**
 * An address input that suggests as you type (agents' workspaces, humans,
 * my named conversations, and `.new` for a fresh conversation): the ARIA 1.2
 * combobox pattern, arrows to move, Enter to pick, Escape to close.
 * With `multiple` (Cc) the field holds a list, suggests for the entry being
 * typed (the last one) and a pick replaces only that entry.
 */
import { useId, useState } from "react";
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
}

type Option = Pick<Candidate, "address" | "kind" | "description">;

function withNew(candidates: Candidate[], typed: string): Option[] {
  const options: Option[] = [...candidates];
  const agent = candidates.find((c) => c.kind === "agent");
  if (agent && !typed.endsWith(".new")) {
    options.splice(candidates.indexOf(agent) + 1, 0, {
      address: `${agent.address}.new`,
      kind: "conversation",
      description: "",
    });
  }
  return options;
}

export function AddressField(props: AddressFieldProps) {
  const { label, value, onChange, required, autoFocus, placeholder, multiple, error, problems = [], onLeave } = props;
  const { t } = useTranslation();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const typed = multiple ? lastEntry(value) : value;
  const suggestions = useAddressSuggestions(typed, open);
  const options = withNew(suggestions.data ?? [], typed);
  const expanded = open && options.length > 0;
  const listId = `${id}-list`;
  const errorId = `${id}-error`;
  const invalid = Boolean(error) || problems.length > 0;

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
        aria-describedby={invalid ? errorId : undefined}
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => {
          setTimeout(() => setOpen(false), 120);
          onLeave?.();
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setOpen(true);
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
              <span className="font-mono text-sm">{option.address}</span>
              <span className="text-xs text-muted">
                {t(`compose.kind.${option.kind}`)}
                {option.address.endsWith(".new") && !option.description ? ` · ${t("compose.newConversation")}` : ""}
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
      ) : null}
    </div>
  );
}
