import { useCallback, useEffect, useState } from 'react';
import type { AuditPage } from '@office/sync-protocol';
import { auditPageRequest, type AuditPageQuery } from '../../api/audit-api';
import { isNetworkError, serverMessageOr } from '../../api/http';
import { auditPageKey, keepAuditPage, keptAuditPage } from '../../data/audit-cache';
import { useOnline } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';

/** A page of the audit log as the screen shows it. */
export interface AuditLogPage {
  page: AuditPage | undefined;
  /** When the copy shown was read from the server, when it is this device's copy rather than a fresh read. */
  keptAt: string | null;
  /** Offline (or unreachable) with no copy of this page on the device. */
  notKept: boolean;
  /** The server's refusal, or why it could not be read. */
  error: string | null;
  reload: () => void;
}

const LOAD_FAILED = 'Could not load the audit log. Please try again.';

/**
 * One page of the audit log: this device's copy at once (the last read of these filters and page), then the
 * server's, kept for next time. Offline, the copy is all there is; a page never read says so.
 */
export function useAuditPage(query: AuditPageQuery): AuditLogPage {
  const { db } = useWorkspace();
  const online = useOnline();
  // What was read, with the page it is of: another page's answer is never shown for this one.
  const [shown, setShown] = useState<Omit<AuditLogPage, 'reload'> & { key: string }>();
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((current) => current + 1), []);
  const { person, action, before } = query;

  useEffect(() => {
    let active = true;
    const wanted = { person, action, before };
    const key = auditPageKey(wanted);
    void (async () => {
      const kept = await keptAuditPage(db, wanted);
      if (!active) return;
      if (kept) setShown({ key, page: kept, keptAt: kept.savedAt, notKept: false, error: null });
      if (!online) {
        if (!kept) setShown({ key, page: undefined, keptAt: null, notKept: true, error: null });
        return;
      }
      try {
        const fresh = await auditPageRequest(wanted);
        await keepAuditPage(db, wanted, fresh);
        if (active) setShown({ key, page: fresh, keptAt: null, notKept: false, error: null });
      } catch (failure) {
        if (!active) return;
        if (isNetworkError(failure)) {
          if (!kept) setShown({ key, page: undefined, keptAt: null, notKept: true, error: null });
        } else
          setShown({
            key,
            page: kept,
            keptAt: kept?.savedAt ?? null,
            notKept: false,
            error: serverMessageOr(failure, LOAD_FAILED),
          });
      }
    })();
    return () => {
      active = false;
    };
  }, [db, online, person, action, before, round]);

  const current = shown?.key === auditPageKey(query) ? shown : undefined;
  return {
    page: current?.page,
    keptAt: current?.keptAt ?? null,
    notKept: current?.notKept ?? false,
    error: current?.error ?? null,
    reload,
  };
}
