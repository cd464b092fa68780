import { lazyChunk, type LazyChunk } from './lazy-chunk';

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

/**
 * Starts loading the screen of `pathname` while the splash runs, so it is there when the splash ends.
 * Other paths ("/", unknown ones) redirect and load their screen then.
 */
export function preloadScreen(pathname: string): void {
  if (Object.hasOwn(screens, pathname)) void screens[pathname as ScreenPath].preload();
}
