import { createContext, useContext } from 'react';
import type { WorkspaceDb } from '../data/db';
import type { RealtimeSocket } from '../realtime/socket';
import type { SyncEngine } from './engine';
import type { MutatorContext } from './mutators';

/** The signed-in user's local database, sync loop and socket. */
export interface Workspace {
  db: WorkspaceDb;
  engine: SyncEngine;
  ctx: MutatorContext;
  socket: RealtimeSocket;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

/** The signed-in user's workspace; only on screens behind the sign-in guard. */
export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace needs a signed-in user inside <SyncProvider>');
  return workspace;
}

/** The workspace if signed in, otherwise null (the shell renders before and after sign-in). */
export const useOptionalWorkspace = (): Workspace | null => useContext(WorkspaceContext);
