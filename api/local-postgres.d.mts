import type { ChildProcess } from 'node:child_process';

/** The ids PostgreSQL runs under as root; null: as ourselves. */
export type ServerAccount = { uid: number; gid: number } | null;
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export const SERVER_ACCOUNT: string;
export const BINARIES_CACHE: string;
export function serverAccount(): ServerAccount;
export function closedFolderOnTheWay(path: string, account: ServerAccount): string | null;
export function postgresBinaries(account: ServerAccount): Promise<PostgresBinaries>;
export function initialiseCluster(options: {
  binaries: PostgresBinaries;
  dataDir: string;
  account: ServerAccount;
  password: string;
  flags?: string[];
  timeoutMs?: number;
}): Promise<void>;
export function startPostgres(options: {
  binaries: PostgresBinaries;
  dataDir: string;
  port: number;
  account: ServerAccount;
  settings?: Record<string, string>;
  detached?: boolean;
  onLine?: (line: string) => void;
  timeoutMs?: number;
}): Promise<ChildProcess>;
export function stopPostgres(server: ChildProcess, graceMs?: number): Promise<void>;
export function startNewCluster(options: {
  parent: string;
  prefix: string;
  port: number;
  flags?: string[];
  settings?: Record<string, string>;
}): Promise<{
  server: ChildProcess;
  /** Holds data/; the caller removes it once the server has stopped. */
  folder: string;
  dataDir: string;
  /** The server's URL without a database: append `/postgres` or another database's name. */
  url: string;
}>;
