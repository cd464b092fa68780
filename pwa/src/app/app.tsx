import { RouterProvider } from 'react-router-dom';
import { DialogsProvider } from '../components/dialogs';
import { SyncProvider } from '../sync/sync-provider';
import { AuthProvider } from './auth/auth-provider';
import { useAuth } from './auth/use-auth';
import { DeviceNotifications } from './device-notifications';
import { getAppRouter } from './router';
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

/**
 * The app under the splash (app/startup.tsx): the session is restored and the sync started while the
 * splash runs, so the first screen is ready when it ends; the routed screens show once it has.
 */
export function App({ splashDone }: { splashDone: boolean }) {
  return (
    <AuthProvider>
      <DialogsProvider>
        <SyncProvider>
          <DeviceNotifications />
          {splashDone ? <AppRoutes /> : null}
        </SyncProvider>
      </DialogsProvider>
      <UpdatePrompt />
    </AuthProvider>
  );
}
