import { useCallback, useEffect, useState } from 'react';
import {
  canManageInvitations,
  type Actor,
  type Invitation,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import { invitationsRequest, workspaceSettingsRequest } from '../../api/access-api';
import { serverMessageOr } from '../../api/http';
import { useOnline } from '../../data/hooks';

/** What the Settings page shows of the server: the sign-up setting and the invitations. */
export interface WorkspaceAccess {
  settings: WorkspaceSettingsResponse | undefined;
  invitations: Invitation[] | undefined;
  /** Why they could not be read (offline, or the server's refusal), or null. */
  error: string | null;
  reload: () => void;
  setSettings: (settings: WorkspaceSettingsResponse) => void;
}

const LOAD_FAILED = 'Could not load the workspace settings. Please try again.';

/**
 * Workspace settings live on the server only (no device keeps them): read when the page opens, again when the
 * connection comes back, and after each change made here.
 */
export function useWorkspaceAccess(actor: Actor): WorkspaceAccess {
  const online = useOnline();
  const [settings, setSettings] = useState<WorkspaceSettingsResponse>();
  const [invitations, setInvitations] = useState<Invitation[]>();
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((current) => current + 1), []);
  const listsInvitations = canManageInvitations(actor);

  useEffect(() => {
    if (!online) return undefined;
    let active = true;
    Promise.all([workspaceSettingsRequest(), listsInvitations ? invitationsRequest() : null])
      .then(([read, listed]) => {
        if (!active) return;
        setSettings(read);
        setInvitations(listed?.invitations ?? []);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (active) setError(serverMessageOr(failure, LOAD_FAILED));
      });
    return () => {
      active = false;
    };
  }, [online, listsInvitations, round]);

  return { settings, invitations, error, reload, setSettings };
}
