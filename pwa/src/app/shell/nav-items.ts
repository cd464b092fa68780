import {
  ClipboardList,
  Settings,
  LayoutDashboard,
  ListChecks,
  Mail,
  MessagesSquare,
  ShieldCheck,
  UserCog,
  Users,
  type LucideIcon,
} from 'lucide-react';
import { canManageEmployees, canOpenMyTasks, type Actor } from '@office/sync-protocol';

/** Admins reach Employee Management's Settings from the sidebar; managers from a tab of Employees. */
const isAdmin = (actor: Actor): boolean => actor.role === 'admin';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  /** Other paths that are this item's pages (tabs of its screen): the item is marked current there too. */
  alsoAt?: readonly string[];
  /** Shown only when this holds for the signed-in user; always shown when absent. */
  visibleTo?: (actor: Actor) => boolean;
}

/** Sidebar items in the order of spec section 2. */
export const navItems: readonly NavItem[] = [
  { to: '/dashboard', label: 'Dashboard', icon: LayoutDashboard },
  { to: '/tasks', label: 'Tasks', icon: ListChecks },
  { to: '/employees', label: 'Employees', icon: UserCog, visibleTo: canManageEmployees },
  {
    to: '/employees/settings',
    label: 'Workspace Settings',
    icon: ShieldCheck,
    alsoAt: ['/employees/audit'],
    visibleTo: isAdmin,
  },
  { to: '/my-tasks', label: 'My Tasks', icon: ClipboardList, visibleTo: canOpenMyTasks },
  { to: '/team-members', label: 'Team Members', icon: Users },
  { to: '/chat', label: 'Chat', icon: MessagesSquare },
  { to: '/direct-messages', label: 'Direct Messages', icon: Mail },
];

/**
 * The section a path belongs to, as the desktop header names it: a sidebar item, or Settings for the
 * profile; null for any other path.
 */
export function sectionOf(pathname: string): Pick<NavItem, 'label' | 'icon'> | null {
  if (pathname === '/profile-settings') return { label: 'Settings', icon: Settings };
  return navItems.find((item) => item.to === pathname || item.alsoAt?.includes(pathname)) ?? null;
}
