import { useQueryClient } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "../api/keys";

/**
 * Make, rename and delete folders of my own. Each resolves once the folder list is
 * fetched again, so a dialog closes on the list as it now is; a refusal (`409
 * name_taken`, `422 invalid_request`, `422 limit_reached`, `404`) rejects with the
 * API's error, for the dialog to say by the input it names.
 */
export function useFolderChanges() {
  const queryClient = useQueryClient();
  const refresh = async (lists: boolean) => {
    await queryClient.invalidateQueries({ queryKey: mailKeys.folders() });
    // A deleted folder's mail is in Archive now.
    if (lists) await queryClient.invalidateQueries({ queryKey: mailKeys.lists() });
  };
  return {
    create: async (name: string) => {
      const folder = await sdk.createFolder(name);
      await refresh(false);
      return folder;
    },
    rename: async (folderId: string, name: string) => {
      const folder = await sdk.renameFolder(folderId, name);
      await refresh(false);
      return folder;
    },
    remove: async (folderId: string) => {
      const deleted = await sdk.deleteFolder(folderId);
      await refresh(true);
      return deleted;
    },
  };
}
