import { useCallback, useEffect, useState } from 'react';
import { currentPushSubscription, isPushSupported } from './push-subscription';

/** This browser's side of web push, as the Notifications switch needs it. */
export interface PushState {
  supported: boolean;
  /** The notification permission; 'default' until the user has been asked. */
  permission: NotificationPermission;
  /** Whether this browser holds a push subscription; undefined while it is being checked. */
  subscribed: boolean | undefined;
  /** Reads the permission and the subscription again (after the switch changed them). */
  refresh: () => Promise<void>;
}

const readPermission = (): NotificationPermission =>
  typeof Notification === 'undefined' ? 'denied' : Notification.permission;

/** Support, permission and subscription, kept current when the user changes the permission in site settings. */
export function usePushState(): PushState {
  const supported = isPushSupported();
  const [permission, setPermission] = useState<NotificationPermission>(() =>
    supported ? readPermission() : 'default',
  );
  const [subscribed, setSubscribed] = useState<boolean | undefined>(supported ? undefined : false);

  const refresh = useCallback(async () => {
    if (!supported) return;
    setPermission(readPermission());
    const subscription = await currentPushSubscription().catch(() => null);
    setSubscribed(subscription !== null);
  }, [supported]);

  useEffect(() => {
    if (!supported) return undefined;
    let active = true;
    void currentPushSubscription()
      .catch(() => null)
      .then((subscription) => {
        if (active) setSubscribed(subscription !== null);
      });
    // Allowing or blocking in the site settings while the screen is open changes the switch at once.
    let status: PermissionStatus | null = null;
    const handleChange = () => void refresh();
    void navigator.permissions
      ?.query({ name: 'notifications' })
      .then((result) => {
        if (!active) return;
        status = result;
        status.addEventListener('change', handleChange);
      })
      .catch(() => undefined);
    return () => {
      active = false;
      status?.removeEventListener('change', handleChange);
    };
  }, [supported, refresh]);

  return { supported, permission, subscribed, refresh };
}
