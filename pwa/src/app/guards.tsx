import type { ReactNode } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import type { Actor, User } from '@office/sync-protocol';
import { useAuth } from './auth/use-auth';
import { choosePasswordScreen } from './screens';
import { ScreenSuspense } from './screen-suspense';

/**
 * Public screens (login, signup): a signed-in user goes to /dashboard. Someone who signed in with a one-time code
 * sees "Choose a new password" here (every signed-in route sends them here, as nobody is signed in until then).
 */
export function PublicOnly() {
  const { user, passwordChangeFor } = useAuth();
  if (user) return <Navigate to="/dashboard" replace />;
  return <ScreenSuspense page>{passwordChangeFor ? <choosePasswordScreen.Component /> : <Outlet />}</ScreenSuspense>;
}

/** Signed-in screens: anyone else goes to /login. The children receive the user. */
export function RequireAuth({ children }: { children: (user: User) => ReactNode }) {
  const { user } = useAuth();
  return user ? children(user) : <Navigate to="/login" replace />;
}

/** Role-gated screens (/employees, /my-tasks): anyone the policy refuses goes to /dashboard. */
export function RequireRole({ allow }: { allow: (actor: Actor) => boolean }) {
  const { user } = useAuth();
  if (!user) {
    return <Navigate to="/login" replace />;
  }
  return allow(user) ? <Outlet /> : <Navigate to="/dashboard" replace />;
}

/** "/" and unknown paths: /dashboard when signed in, /login otherwise. */
export function HomeRedirect() {
  const { user } = useAuth();
  return <Navigate to={user ? '/dashboard' : '/login'} replace />;
}
