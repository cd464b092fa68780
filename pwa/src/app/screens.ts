import { lazyChunk, type LazyChunk } from './lazy-chunk';
import { whenIdle } from './when-idle';

/** Each route's screen is a chunk of its own, loaded when the route is first shown (or preloaded). */
export const screens = {
  '/login': lazyChunk('login-screen', () => import('../screens/login/login-screen').then((m) => m.LoginScreen)),
  '/signup': lazyChunk('signup-screen', () => import('../screens/signup/signup-screen').then((m) => m.SignupScreen)),
  '/dashboard': lazyChunk('dashboard-screen', () =>
    import('../screens/dashboard/dashboard-screen').then((m) => m.DashboardScreen),
  ),
  '/tasks': lazyChunk('tasks-screen', () => import('../screens/tasks/tasks-screen').then((m) => m.TasksScreen)),
  '/employees': lazyChunk('employees-screen', () =>
    import('../screens/employees/employees-screen').then((m) => m.EmployeesScreen),
  ),
  '/employees/settings': lazyChunk('workspace-settings-screen', () =>
    import('../screens/workspace-settings/workspace-settings-screen').then((m) => m.WorkspaceSettingsScreen),
  ),
  '/employees/audit': lazyChunk('audit-log-screen', () =>
    import('../screens/audit-log/audit-log-screen').then((m) => m.AuditLogScreen),
  ),
  '/my-tasks': lazyChunk('my-tasks-screen', () =>
    import('../screens/my-tasks/my-tasks-screen').then((m) => m.MyTasksScreen),
  ),
  '/team-members': lazyChunk('team-members-screen', () =>
    import('../screens/team-members/team-members-screen').then((m) => m.TeamMembersScreen),
  ),
  '/chat': lazyChunk('chat-screen', () => import('../screens/chat/chat-screen').then((m) => m.ChatScreen)),
  '/direct-messages': lazyChunk('direct-messages-screen', () =>
    import('../screens/direct-messages/direct-messages-screen').then((m) => m.DirectMessagesScreen),
  ),
  '/profile-settings': lazyChunk('profile-settings-screen', () =>
    import('../screens/profile-settings/profile-settings-screen').then((m) => m.ProfileSettingsScreen),
  ),
} satisfies Record<string, LazyChunk>;

export type ScreenPath = keyof typeof screens;

/** The one screen of someone who signed in with a one-time code, whatever the address (app/guards.tsx). */
export const choosePasswordScreen = lazyChunk('choose-password-screen', () =>
  import('../screens/choose-password/choose-password-screen').then((m) => m.ChoosePasswordScreen),
);

const publicPaths: readonly string[] = ['/login', '/signup'];

/**
 * Loads the screen that `pathname` will show: the route guards send a signed-out visitor to /login (or
 * /signup) and a signed-in one from the public pages, "/" and unknown paths to /dashboard. It settles either
 * way; a screen that failed to load says so when its route renders it.
 */
export function preloadScreen(pathname: string, signedIn: boolean): Promise<unknown> {
  const shown: ScreenPath = signedIn
    ? Object.hasOwn(screens, pathname) && !publicPaths.includes(pathname)
      ? (pathname as ScreenPath)
      : '/dashboard'
    : pathname === '/signup'
      ? '/signup'
      : '/login';
  return screens[shown].load().catch(() => undefined);
}

/**
 * Loads every signed-in screen while the browser is idle: moving between screens is then immediate, and
 * works offline even before the service worker has finished caching the app. One screen per idle period,
 * each after the previous has loaded, so no evaluation burst blocks a tap on a slow phone. Returns a cancel
 * function.
 */
export function preloadSignedInScreens(): () => void {
  const pending = Object.entries(screens).flatMap(([path, screen]) => (publicPaths.includes(path) ? [] : [screen]));
  let cancelNext = () => {};
  let cancelled = false;
  const loadNext = () => {
    const screen = pending.shift();
    if (!screen || cancelled) return;
    void screen
      .load()
      .catch(() => undefined)
      .then(() => {
        if (!cancelled) cancelNext = whenIdle(loadNext);
      });
  };
  cancelNext = whenIdle(loadNext);
  return () => {
    cancelled = true;
    cancelNext();
  };
}
