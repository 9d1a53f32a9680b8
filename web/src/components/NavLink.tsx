import type { MouseEvent, ReactNode } from "react";
import { navigate } from "@/lib/router";

export interface NavLinkProps {
  href: string;
  current: boolean;
  className: string;
  children: ReactNode;
  label?: string;
  /** After an in-place navigation (a drawer closes, say). */
  onNavigate?: () => void;
}

/** A real link (open in a new tab works) that navigates in place on a plain click. */
export function NavLink({ href, current, className, children, label, onNavigate }: NavLinkProps) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
    onNavigate?.();
  };
  return (
    <a href={href} onClick={onClick} aria-current={current ? "page" : undefined} aria-label={label} className={className}>
      {children}
    </a>
  );
}
