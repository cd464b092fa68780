import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { canManageEmployees, canOpenMyTasks } from '@office/sync-protocol';
import { HomeRedirect, PublicOnly, RequireAuth, RequireRole } from './guards';
import { AppShell } from './shell/app-shell';
import { LoginScreen } from '../screens/login/login-screen';
import { SignupScreen } from '../screens/signup/signup-screen';
import { DashboardScreen } from '../screens/dashboard/dashboard-screen';
import { TasksScreen } from '../screens/tasks/tasks-screen';
import { EmployeesScreen } from '../screens/employees/employees-screen';
import { MyTasksScreen } from '../screens/my-tasks/my-tasks-screen';
import { TeamMembersScreen } from '../screens/team-members/team-members-screen';
import { ChatScreen } from '../screens/chat/chat-screen';
import { DirectMessagesScreen } from '../screens/direct-messages/direct-messages-screen';
import { ProfileSettingsScreen } from '../screens/profile-settings/profile-settings-screen';

/** The route table of spec section 2. */
export const routes: RouteObject[] = [
  {
    element: <PublicOnly />,
    children: [
      { path: '/login', element: <LoginScreen /> },
      { path: '/signup', element: <SignupScreen /> },
    ],
  },
  {
    element: <RequireAuth>{(user) => <AppShell user={user} />}</RequireAuth>,
    children: [
      { path: '/dashboard', element: <DashboardScreen /> },
      { path: '/tasks', element: <TasksScreen /> },
      { path: '/team-members', element: <TeamMembersScreen /> },
      { path: '/chat', element: <ChatScreen /> },
      { path: '/direct-messages', element: <DirectMessagesScreen /> },
      { path: '/profile-settings', element: <ProfileSettingsScreen /> },
      {
        element: <RequireRole allow={canManageEmployees} />,
        children: [{ path: '/employees', element: <EmployeesScreen /> }],
      },
      {
        element: <RequireRole allow={canOpenMyTasks} />,
        children: [{ path: '/my-tasks', element: <MyTasksScreen /> }],
      },
    ],
  },
  { path: '/', element: <HomeRedirect /> },
  { path: '*', element: <HomeRedirect /> },
];

type AppRouter = ReturnType<typeof createBrowserRouter>;
let appRouter: AppRouter | null = null;

/** The app's one browser router, created on first use (after the splash). */
export function getAppRouter(): AppRouter {
  appRouter ??= createBrowserRouter(routes);
  return appRouter;
}
