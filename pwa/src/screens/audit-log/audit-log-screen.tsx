import { useState } from 'react';
import { ChevronLeft, ChevronRight, History, WifiOff } from 'lucide-react';
import type { AuditAction, AuditRecord } from '@office/sync-protocol';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { FormAlert } from '../../components/form-alert';
import { PageHeader } from '../../components/page-header';
import { useOnline, useUsers } from '../../data/hooks';
import { EmployeesTabs } from '../employees/employees-tabs';
import { formatTimestamp } from '../tasks/task-format';
import { auditActionLabels, auditActorText, auditDetails, auditKindOptions, auditPersonOptions } from './audit-format';
import { useAuditPage } from './use-audit-page';
import styles from './audit-log.module.css';

/**
 * The audit log (/employees/audit, admins): who did what to whom, when and from which address, newest first, a page at
 * a time, by person and by kind. Pages read here are kept on the device, so what was seen reads offline too.
 */
export function AuditLogScreen() {
  const users = useUsers();
  const online = useOnline();
  // The person filtered by, with their name: one deleted since stays offered while chosen.
  const [chosen, setChosen] = useState<{ id: string; name: string } | null>(null);
  const person = chosen?.id ?? '';
  const [action, setAction] = useState<AuditAction | ''>('');
  // The `before` of each page opened past the first: Newer goes back one.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const log = useAuditPage({
    ...(person ? { person } : {}),
    ...(action ? { action } : {}),
    ...(before ? { before } : {}),
  });
  const filtered = person !== '' || action !== '';

  const personOptions = auditPersonOptions(users ?? [], log.page?.records ?? [], chosen);
  const choosePerson = (id: string) => {
    const option = personOptions.find((candidate) => candidate.id === id);
    setChosen(option ? { id, name: option.name } : null);
    setCursors([]);
  };
  const chooseAction = (value: AuditAction | '') => {
    setAction(value);
    setCursors([]);
  };

  return (
    <div className={styles.page}>
      <PageHeader title="Workspace Settings" subtitle="Who did what, when and from which address." />
      <EmployeesTabs />

      <div className={styles.toolbar}>
        <select
          className={styles.select}
          aria-label="Filter by person"
          value={person}
          onChange={(event) => choosePerson(event.target.value)}
        >
          <option value="">Everyone</option>
          {personOptions.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
        <select
          className={styles.select}
          aria-label="Filter by kind"
          value={action}
          onChange={(event) => chooseAction(event.target.value as AuditAction | '')}
        >
          <option value="">All kinds</option>
          {auditKindOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>

      {log.keptAt !== null && (
        <p className={styles.keptBanner} role="status">
          <WifiOff size={18} aria-hidden="true" />
          {online ? '' : 'You are offline. '}Showing this device's copy of the page, read {formatTimestamp(log.keptAt)}.
        </p>
      )}
      {log.error !== null && (
        <div className={styles.loadError}>
          <FormAlert message={log.error} />
          <Button variant="secondary" size="small" onClick={log.reload}>
            Try Again
          </Button>
        </div>
      )}

      {log.notKept ? (
        <EmptyState
          classNames={{ root: styles.empty }}
          icon={<WifiOff size={28} />}
          title="Not on this device"
          text="This page of the audit log has not been read on this device yet. Connect to the internet to see it."
        />
      ) : log.page === undefined ? (
        log.error === null && (
          <p className={styles.state} role="status">
            Loading the audit log...
          </p>
        )
      ) : log.page.records.length === 0 && cursors.length === 0 ? (
        <EmptyState
          classNames={{ root: styles.empty }}
          icon={<History size={28} />}
          title="No records"
          text={filtered ? 'Nothing was recorded for these filters.' : 'Nothing has been recorded yet.'}
        />
      ) : (
        <>
          <ol className={styles.records} aria-label="Audit records">
            {log.page.records.map((record) => (
              <AuditRecordItem key={record.id} record={record} />
            ))}
          </ol>
          <nav className={styles.pager} aria-label="Audit log pages">
            <Button
              variant="secondary"
              size="small"
              disabled={cursors.length === 0}
              onClick={() => setCursors((current) => current.slice(0, -1))}
            >
              <ChevronLeft size={16} aria-hidden="true" />
              Newer
            </Button>
            <span className={styles.pageNumber}>Page {cursors.length + 1}</span>
            <Button
              variant="secondary"
              size="small"
              disabled={log.page.nextBefore === null}
              onClick={() => {
                const next = log.page?.nextBefore;
                if (next) setCursors((current) => [...current, next]);
              }}
            >
              Older
              <ChevronRight size={16} aria-hidden="true" />
            </Button>
          </nav>
        </>
      )}
    </div>
  );
}

/** One record: what, when, who, about whom, from where, and what it says. */
function AuditRecordItem({ record }: { record: AuditRecord }) {
  const details = auditDetails(record);
  return (
    <li className={styles.record} data-action={record.action}>
      <div className={styles.recordHead}>
        <span className={`${styles.kind} ${record.action === 'sign_in_failed' ? styles.refused : ''}`}>
          {auditActionLabels[record.action]}
        </span>
        <time className={styles.time} dateTime={record.at}>
          {formatTimestamp(record.at)}
        </time>
      </div>
      <dl className={styles.facts}>
        <div>
          <dt>By:</dt>
          <dd>{auditActorText(record)}</dd>
        </div>
        {record.targetName !== null && (
          <div>
            <dt>About:</dt>
            <dd>{record.targetName}</dd>
          </div>
        )}
        <div>
          <dt>From:</dt>
          <dd>{record.ip ?? 'Unknown address'}</dd>
        </div>
        {details.map((detail) => (
          <div key={detail.label}>
            <dt>{detail.label}:</dt>
            <dd>{detail.value}</dd>
          </div>
        ))}
      </dl>
    </li>
  );
}
