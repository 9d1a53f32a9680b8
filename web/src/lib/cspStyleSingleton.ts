/**
 * `react-style-singleton` without a `<style>` element. Radix's dialogs lock the
 * page's scroll through react-remove-scroll, which injects its CSS as a
 * `<style>` element; the gateway's CSP (`style-src 'self'`) blocks that, so the
 * lock silently did nothing and every dialog logged a CSP violation (found by
 * the e2e CSP check, tests/e2e/desk.py). Constructed stylesheets
 * (`document.adoptedStyleSheets`) are CSSOM, which the CSP does not govern, so
 * the same CSS applies with the policy intact. vite.config.ts aliases the
 * package to this module; the API is the package's (v2.2).
 */
import { useEffect } from "react";

interface Sheet {
  add: (css: string) => void;
  remove: () => void;
}

function adopt(css: string): CSSStyleSheet | null {
  if (typeof CSSStyleSheet === "undefined" || !("adoptedStyleSheets" in document)) return null;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return sheet;
}

function drop(sheet: CSSStyleSheet): void {
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
}

/** Styles added when the first user mounts and removed when the last one goes. */
export function stylesheetSingleton(): Sheet {
  let users = 0;
  let sheet: CSSStyleSheet | null = null;
  return {
    add(css) {
      if (users === 0) sheet = adopt(css);
      users += 1;
    },
    remove() {
      users -= 1;
      if (users === 0 && sheet) {
        drop(sheet);
        sheet = null;
      }
    },
  };
}

export function styleHookSingleton(): (styles: string, isDynamic?: boolean) => void {
  const sheet = stylesheetSingleton();
  return (styles, isDynamic) => {
    useEffect(() => {
      sheet.add(styles);
      return () => sheet.remove();
      // As the package does: the styles are read once unless they are dynamic.
    }, [styles && isDynamic]);
  };
}

export function styleSingleton(): (props: { styles: string; dynamic?: boolean }) => null {
  const useStyle = styleHookSingleton();
  return function Sheet({ styles, dynamic }) {
    useStyle(styles, dynamic);
    return null;
  };
}
