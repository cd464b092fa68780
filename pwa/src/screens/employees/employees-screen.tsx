import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { CircleAlert, CircleCheck, LayoutGrid, List, UserCheck, Users, UserX } from 'lucide-react';
import type { EmployeeSummary } from '@office/sync-protocol';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { SearchField } from '../../components/search-field';
import { useFlash } from '../../components/use-flash';
import { useNow } from '../../components/use-now';
import { useEmployeeSummaries } from '../../data/employee-hooks';
import { useToday } from '../../data/hooks';
import { countOnlineNow } from '../../data/people';
import { usePresence } from '../../data/use-people';
import { useWorkspace } from '../../sync/sync-context';
import { DeleteEmployeeModal } from './delete-employee-modal';
import { EmployeeCard, type EmployeeLayout } from './employee-card';
import { EmployeeDetailModal } from './employee-detail-modal';
import { EmployeesTabs } from './employees-tabs';
import { ResetPasswordDialog } from '../workspace-settings/reset-password-dialog';
import {
  emptyEmployeesState,
  employeeCountText,
  filterEmployees,
  isPresenceFilter,
  presenceFilterOptions,
  type PresenceFilter,
} from './employee-filters';
import { deletedText } from './employee-format';
import styles from './employees.module.css';

/** Employee Management (/employees, managers only): every employee's workload, from this device's data. */
export function EmployeesScreen() {
  const summaries = useEmployeeSummaries();
  const presence = usePresence();
  // Presence as every screen shows it (data/people.ts): this device's own person is offline without a connection.
  const employees = useMemo(
    () => summaries?.map((summary) => ({ ...summary, presence: presence(summary.user) })),
    [summaries, presence],
  );
  const { engine } = useWorkspace();
  const today = useToday();
  // Re-renders every minute so "Last seen ... ago" stays true.
  const now = useNow().getTime();
  const [flash, showFlash] = useFlash(3000);

  const [search, setSearch] = useState('');
  // The presence filter lives in the address (?presence=online), so the dashboard's Online Now can link to it.
  const [searchParams, setSearchParams] = useSearchParams();
  const presenceParam = searchParams.get('presence') ?? 'all';
  const status: PresenceFilter = isPresenceFilter(presenceParam) ? presenceParam : 'all';
  const setStatus = (value: PresenceFilter) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        if (value === 'all') next.delete('presence');
        else next.set('presence', value);
        return next;
      },
      { replace: true },
    );
  const [layout, setLayout] = useState<EmployeeLayout>('grid');
  const [openId, setOpenId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<{ id: string; name: string } | null>(null);
  const [resetting, setResetting] = useState<{ id: string; name: string } | null>(null);

  const all = employees ?? [];
  const shown = filterEmployees(all, search, status);
  const filtering = search.trim() !== '' || status !== 'all';
  const onlineNow = countOnlineNow(
    all.map((employee) => employee.user),
    presence,
  );
  // Read from the live list: the detail follows every change and closes if the employee goes away.
  const open = openId === null ? undefined : all.find((employee) => employee.user.id === openId);

  const handleOpen = useCallback((id: string) => setOpenId(id), []);
  const handleCloseDetail = useCallback(() => setOpenId(null), []);
  const handleDelete = useCallback(
    (employee: EmployeeSummary) => setDeleting({ id: employee.user.id, name: employee.user.name }),
    [],
  );
  const handleCloseDelete = useCallback(() => setDeleting(null), []);
  const handleResetPassword = useCallback(
    (employee: EmployeeSummary) => setResetting({ id: employee.user.id, name: employee.user.name }),
    [],
  );
  const handleCloseReset = useCallback(() => setResetting(null), []);
  const handleDeleted = useCallback(
    (name: string) => {
      setDeleting(null);
      showFlash({ kind: 'success', text: deletedText(name) });
      // The server has recorded the removal; pull it now rather than wait for the next poke.
      engine.kick();
    },
    [engine, showFlash],
  );

  const empty = emptyEmployeesState(all.length, search, status);

  return (
    <div className={styles.page}>
      {flash && (
        <div
          className={`${styles.flash} ${flash.kind === 'success' ? styles.flashSuccess : styles.flashError}`}
          role={flash.kind === 'success' ? 'status' : 'alert'}
        >
          {flash.kind === 'success' ? (
            <CircleCheck size={18} aria-hidden="true" />
          ) : (
            <CircleAlert size={18} aria-hidden="true" />
          )}
          <span>{flash.text}</span>
        </div>
      )}

      <PageHeader
        title="Employee Management"
        subtitle="Review your team's workload, presence and performance."
        actions={
          <div className={styles.stats}>
            <div
              className={styles.stat}
              role="group"
              aria-label={`Total Employees: ${employees ? all.length : 'loading'}`}
            >
              <span className={`${styles.statIcon} ${styles.statBrand}`} aria-hidden="true">
                <Users size={20} />
              </span>
              <span className={styles.statText}>
                <span className={styles.statLabel}>Total Employees</span>
                <span className={styles.statValue}>{employees ? all.length : '–'}</span>
              </span>
            </div>
            <button
              type="button"
              className={`${styles.stat} ${styles.statButton}`}
              aria-pressed={status === 'online'}
              aria-label={`Online Now: ${onlineNow}`}
              title={status === 'online' ? 'Show every employee' : 'Show only online employees'}
              onClick={() => setStatus(status === 'online' ? 'all' : 'online')}
            >
              <span className={`${styles.statIcon} ${styles.statGreen}`} aria-hidden="true">
                <UserCheck size={20} />
              </span>
              <span className={styles.statText}>
                <span className={styles.statLabel}>Online Now</span>
                <span className={styles.statValue}>{employees ? onlineNow : '–'}</span>
              </span>
            </button>
          </div>
        }
      />
      <EmployeesTabs />

      <div className={styles.toolbar}>
        <SearchField placeholder="Search employees..." value={search} onValueChange={setSearch} />
        <div className={styles.toolbarEnd}>
          <select
            className={styles.select}
            aria-label="Filter by status"
            value={status}
            onChange={(event) => {
              if (isPresenceFilter(event.target.value)) setStatus(event.target.value);
            }}
          >
            {presenceFilterOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          <div className={styles.viewToggle} role="group" aria-label="View">
            <button
              type="button"
              className={styles.viewButton}
              aria-label="Grid view"
              title="Grid view"
              aria-pressed={layout === 'grid'}
              onClick={() => setLayout('grid')}
            >
              <LayoutGrid size={18} aria-hidden="true" />
            </button>
            <button
              type="button"
              className={styles.viewButton}
              aria-label="List view"
              title="List view"
              aria-pressed={layout === 'list'}
              onClick={() => setLayout('list')}
            >
              <List size={18} aria-hidden="true" />
            </button>
          </div>
        </div>
      </div>

      {employees !== undefined && all.length > 0 && (
        <p className={styles.resultCount} aria-live="polite">
          {employeeCountText(shown.length, all.length, filtering)}
        </p>
      )}

      {employees === undefined ? (
        <p className={styles.loading} role="status">
          Loading employees...
        </p>
      ) : shown.length === 0 ? (
        <EmptyState
          variant="card"
          icon={all.length === 0 ? <Users size={28} /> : <UserX size={28} />}
          title={empty.title}
          text={empty.text}
          classNames={{ text: styles.emptyText }}
        />
      ) : (
        <ul className={layout === 'grid' ? styles.grid : styles.list} aria-label="Employees">
          {shown.map((employee) => (
            <li key={employee.user.id} className={styles.item}>
              <EmployeeCard
                employee={employee}
                layout={layout}
                now={now}
                onOpen={handleOpen}
                onDelete={handleDelete}
                onResetPassword={handleResetPassword}
              />
            </li>
          ))}
        </ul>
      )}

      {open !== undefined && (
        <EmployeeDetailModal employee={open} today={today} now={now} onClose={handleCloseDetail} />
      )}
      {deleting !== null && (
        <DeleteEmployeeModal employee={deleting} onClose={handleCloseDelete} onDeleted={handleDeleted} />
      )}
      {resetting !== null && <ResetPasswordDialog person={resetting} onClose={handleCloseReset} />}
    </div>
  );
}
