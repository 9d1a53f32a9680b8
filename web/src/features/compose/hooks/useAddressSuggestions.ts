import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { sdk } from "@/lib/sdk";

/** Suggestions from `/addresses/suggest` for what is typed, debounced a little. */
export function useAddressSuggestions(text: string, enabled: boolean) {
  const [q, setQ] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setQ(text), 150);
    return () => clearTimeout(timer);
  }, [text]);
  return useQuery({
    queryKey: ["addresses", "suggest", q],
    queryFn: async () => (await sdk.suggest(q, 8)).candidates,
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}
