import { NavLink } from 'react-router-dom';
import { canManageEmployees, canReadAuditLog } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import styles from './employees-tabs.module.css';

/**
 * Employee Management's pages: for managers, the employees and the workspace's Settings (who may join); for admins,
 * those Settings and the audit log.
 */
export function EmployeesTabs() {
  const { user } = useAuth();
  const actor = user ?? { id: '', role: 'employee' as const };
  const tabClass = ({ isActive }: { isActive: boolean }) => `${styles.tab} ${isActive ? styles.active : ''}`;
  return (
    <nav className={styles.tabs} aria-label="Employee Management">
      {canManageEmployees(actor) && (
        <NavLink to="/employees" end className={tabClass}>
          Employees
        </NavLink>
      )}
      <NavLink to="/employees/settings" className={tabClass}>
        Settings
      </NavLink>
      {canReadAuditLog(actor) && (
        <NavLink to="/employees/audit" className={tabClass}>
          Audit log
        </NavLink>
      )}
    </nav>
  );
}
