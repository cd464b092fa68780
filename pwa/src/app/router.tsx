import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { canManageEmployees, canOpenMyTasks, canOpenWorkspaceSettings, canReadAuditLog } from '@office/sync-protocol';
import { HomeRedirect, PublicOnly, RequireAuth, RequireRole } from './guards';
import { RouteError } from './route-error';
import { screens, type ScreenPath } from './screens';
import { AppShell } from './shell/app-shell';

function screenRoute(path: ScreenPath): RouteObject {
  const { Component } = screens[path];
  return { path, element: <Component /> };
}

/** The route table of spec section 2. */
export const routes: RouteObject[] = [
  {
    element: <PublicOnly />,
    errorElement: <RouteError />,
    children: [screenRoute('/login'), screenRoute('/signup')],
  },
  {
    element: <RequireAuth>{(user) => <AppShell user={user} />}</RequireAuth>,
    children: [
      {
        // In the shell's main area, so the sidebar stays usable when a screen fails.
        errorElement: <RouteError />,
        children: [
          screenRoute('/dashboard'),
          screenRoute('/tasks'),
          screenRoute('/team-members'),
          screenRoute('/chat'),
          screenRoute('/direct-messages'),
          screenRoute('/profile-settings'),
          {
            element: <RequireRole allow={canManageEmployees} />,
            children: [screenRoute('/employees')],
          },
          {
            // Who may join, invitations and password resets: managers (a tab of Employees) and admins.
            element: <RequireRole allow={canOpenWorkspaceSettings} />,
            children: [screenRoute('/employees/settings')],
          },
          {
            // Who did what, when and from where: admins only (a tab beside the workspace's Settings).
            element: <RequireRole allow={canReadAuditLog} />,
            children: [screenRoute('/employees/audit')],
          },
          {
            element: <RequireRole allow={canOpenMyTasks} />,
            children: [screenRoute('/my-tasks')],
          },
        ],
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
