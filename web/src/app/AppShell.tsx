/** The signed-in app: navigation, the current view, compose, shortcuts and the live stream. */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { useTranslation } from "react-i18next";
import type { User } from "@/api";
import { permissionsQuery } from "@/features/approvals/api/queries";
import { useWorkQueue } from "./queue/workQueue";
import { openCompose, useComposeRequest } from "@/features/compose/hooks/composeStore";
import { foldersQuery, unreadCountQuery } from "@/features/mail/api/queries";
import { navigate, useRoute } from "@/lib/router";
import { sdk } from "@/lib/sdk";
import { useNarrow } from "@/lib/useMediaQuery";
import { BottomNav } from "./BottomNav";
import { ConversationsView } from "./ConversationsView";
import { DecisionsView } from "./DecisionsView";
import { MailboxView } from "./MailboxView";
import { activeNavId } from "./navItems";
import { ShortcutHelp } from "./ShortcutHelp";
import { Sidebar } from "./Sidebar";
import { useDocumentTitle } from "./useDocumentTitle";
import { useKeyboard } from "./useKeyboard";
import { useLiveUpdates } from "./useLiveUpdates";
import { useSignInAgainOn401 } from "./useSignInAgainOn401";
import { Loading } from "@/components/Loading";
import { Toaster } from "@/components/Toaster";

// Pages and dialogs that are not the first paint load when first used.
const AccountPage = lazy(() => import("@/features/account/components/AccountPage").then((m) => ({ default: m.AccountPage })));
const AdminPage = lazy(() => import("@/features/admin/components/AdminPage").then((m) => ({ default: m.AdminPage })));
const AgentsView = lazy(() => import("./AgentsView").then((m) => ({ default: m.AgentsView })));
const AgentView = lazy(() => import("./AgentView").then((m) => ({ default: m.AgentView })));
const WorkQueueView = lazy(() =>
  import("./queue/WorkQueueView").then((m) => ({ default: m.WorkQueueView })),
);
const ComposeDialog = lazy(() =>
  import("@/features/compose/components/ComposeDialog").then((m) => ({ default: m.ComposeDialog })),
);

export function AppShell({ me }: { me: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const route = useRoute();
  const narrow = useNarrow();
  const compose = useComposeRequest();
  const [help, setHelp] = useState(false);
  const live = useLiveUpdates(true);
  useSignInAgainOn401();
  const unread = useQuery(unreadCountQuery()).data;
  const decisions = useQuery(permissionsQuery("open")).data?.total;
  const queue = useWorkQueue().count;
  const folders = useQuery(foldersQuery()).data;
  const active = activeNavId(route);
  const currentFolderId = route.view === "folder" ? route.folderId : null;
  const folderName = folders?.find((folder) => folder.folder_id === currentFolderId)?.name;
  useDocumentTitle(unread, folderName ?? t(`nav.${active}`));
  useKeyboard({
    c: () => openCompose({ mode: "new" }),
    "?": () => setHelp(true),
    "g n": () => navigate("/"),
    "g i": () => navigate("/inbox"),
    "g d": () => navigate("/decisions"),
  });

  const logout = async () => {
    await sdk.logout().catch(() => undefined);
    queryClient.clear();
    navigate("/inbox", { replace: true });
    window.location.reload();
  };

  let view;
  switch (route.view) {
    case "queue":
      view = <WorkQueueView me={me} />;
      break;
    case "mail":
      view = <MailboxView key={route.folder} mailbox={route.folder} mailId={route.mailId} me={me} />;
      break;
    case "folder":
      view = <MailboxView key={`folder:${route.folderId}`} mailbox={{ folderId: route.folderId }} mailId={route.mailId} me={me} />;
      break;
    case "decisions":
      view = <DecisionsView mailId={route.mailId} me={me} />;
      break;
    case "conversations":
      view = <ConversationsView sessionId={route.sessionId} me={me.name} />;
      break;
    case "agents":
      view = route.name ? <AgentView key={route.name} name={route.name} /> : <AgentsView />;
      break;
    case "admin":
      view = me.is_admin ? <AdminPage /> : null;
      break;
    case "account":
      view = <AccountPage me={me} onLogout={() => void logout()} />;
      break;
    default:
      view = <MailboxView mailbox="inbox" mailId={null} me={me} />;
  }
  const counts = { unread, decisions, queue };
  const nav = { active, counts, isAdmin: me.is_admin, currentFolderId };
  return (
    <div className="flex h-full flex-col md:flex-row">
      <a href="#content" className="sr-only focus:not-sr-only focus:absolute focus:z-50 focus:bg-surface focus:p-2">
        {t("common.skipToContent")}
      </a>
      {narrow ? null : <Sidebar {...nav} live={live} />}
      {/* The one main landmark of every page (axe: landmark-one-main, region); the skip link's target. */}
      <main id="content" className="flex min-h-0 min-w-0 flex-1 flex-col">
        <Suspense fallback={<Loading />}>{view}</Suspense>
      </main>
      {narrow ? <BottomNav {...nav} /> : null}
      {compose ? (
        <Suspense fallback={null}>
          <ComposeDialog key={compose.id} request={compose.request} me={me.name} />
        </Suspense>
      ) : null}
      <ShortcutHelp open={help} onOpenChange={setHelp} />
      <Toaster />
    </div>
  );
}
