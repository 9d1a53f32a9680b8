/** Upload limits as a person reads them: in MiB, as the gateway sets them (25 MiB by default). */
const MIB = 1024 * 1024;

export function formatMiB(bytes: number, language = "en"): string {
  const value = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(bytes / MIB);
  return `${value} MiB`;
}
