import { QueryClientProvider, useQuery } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import { ApiError } from "@/api";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { meQuery } from "@/features/auth/api/queries";
import { LoginPage } from "@/features/auth/components/LoginPage";
import { AppShell } from "./AppShell";

function Gate() {
  const me = useQuery(meQuery());
  if (me.isPending) return <Loading />;
  if (me.isError) {
    if (me.error instanceof ApiError && (me.error.status === 401 || me.error.status === 403)) return <LoginPage />;
    return <ErrorNote error={me.error} className="m-4" />;
  }
  return <AppShell me={me.data} />;
}

export function App({ queryClient }: { queryClient: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <Gate />
    </QueryClientProvider>
  );
}
