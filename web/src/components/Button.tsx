import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "ghost" | "danger";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-accent-ink hover:opacity-90 border-transparent",
  secondary: "bg-surface text-ink border-line hover:bg-raised",
  ghost: "bg-transparent text-ink border-transparent hover:bg-raised",
  danger: "bg-danger-soft text-danger border-danger hover:opacity-90",
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
}

/** Buttons are at least 44 px tall on touch screens (coarse pointers), 36 px otherwise. */
export function Button({ variant = "secondary", className = "", type = "button", ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={`inline-flex min-h-9 items-center justify-center gap-1.5 rounded-md border px-3 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50 max-md:min-h-11 max-md:min-w-11 ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}
