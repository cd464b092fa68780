import styles from './role-badge.module.css';

/** "manager" reads "Manager" (spec section 2); unknown roles keep their spelling; a missing role reads as employee. */
export const roleLabel = (role: string | null | undefined): string => {
  const value = role || 'employee';
  return value.charAt(0).toUpperCase() + value.slice(1);
};

const roleClass: Record<string, string | undefined> = {
  manager: styles.manager,
  employee: styles.employee,
  admin: styles.admin,
};

/** The role badge: manager red, employee green, admin purple, any other grey (spec section 6). */
export function RoleBadge({ role, className }: { role: string; className?: string | undefined }) {
  const classes = [styles.badge, roleClass[role] ?? styles.other, className].filter(Boolean).join(' ');
  return <span className={classes}>{roleLabel(role)}</span>;
}
