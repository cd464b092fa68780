import { useCallback, useState } from 'react';
import { RouterProvider } from 'react-router-dom';
import { SyncProvider } from '../sync/sync-provider';
import { AuthProvider } from './auth/auth-provider';
import { useAuth } from './auth/use-auth';
import { DeviceNotifications } from './device-notifications';
import { getAppRouter } from './router';
import { SplashScreen } from './splash/splash-screen';
import { hasSplashBeenShown, markSplashShown } from './splash/splash-session';
import { UpdatePrompt } from './update-prompt';
import styles from './app.module.css';

function AppRoutes() {
  const { loading } = useAuth();
  if (loading) {
    return (
      <div className={styles.loading} role="status">
        Loading...
      </div>
    );
  }
  return <RouterProvider router={getAppRouter()} />;
}

/** The whole app: the splash once per tab session, then the routed screens. */
export function App() {
  const [splashDone, setSplashDone] = useState(hasSplashBeenShown);
  const handleSplashDone = useCallback(() => {
    markSplashShown();
    setSplashDone(true);
  }, []);

  // The session is restored underneath the splash, so the first screen is ready when it ends.
  return (
    <AuthProvider>
      <SyncProvider>
        <DeviceNotifications />
        {splashDone ? <AppRoutes /> : <SplashScreen onDone={handleSplashDone} />}
      </SyncProvider>
      <UpdatePrompt />
    </AuthProvider>
  );
}
