import { NavLink } from 'react-router-dom';
import styles from './employees-tabs.module.css';

/** Employee Management's two pages for managers: the employees, and the workspace's Settings (who may join). */
export function EmployeesTabs() {
  const tabClass = ({ isActive }: { isActive: boolean }) => `${styles.tab} ${isActive ? styles.active : ''}`;
  return (
    <nav className={styles.tabs} aria-label="Employee Management">
      <NavLink to="/employees" end className={tabClass}>
        Employees
      </NavLink>
      <NavLink to="/employees/settings" className={tabClass}>
        Settings
      </NavLink>
    </nav>
  );
}
