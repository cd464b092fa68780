import { useState } from 'react';
import { BellOff, BellRing, WifiOff } from 'lucide-react';
import { FormAlert } from '../../components/form-alert';
import type { Flash } from '../../components/use-flash';
import { useOnline } from '../../data/hooks';
import { pushFailureMessage, pushTexts, subscribeToPush, unsubscribeFromPush } from '../../push/push-subscription';
import { usePushState } from '../../push/use-push-state';
import styles from './profile-settings.module.css';
import switchStyles from './notifications-section.module.css';
import { NotificationPreferencesForm } from './notification-preferences';
import { SwitchRow } from './switch-row';

interface NotificationsSectionProps {
  onFlash: (flash: Flash) => void;
}

/**
 * Push notifications for this device. The browser's permission is asked only when the user turns the
 * switch on; both directions need the server, so the switch waits for a connection.
 */
export function NotificationsSection({ onFlash }: NotificationsSectionProps) {
  const online = useOnline();
  const push = usePushState();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const blocked = push.supported && push.permission === 'denied';
  const on = push.supported && push.permission === 'granted' && push.subscribed === true;
  const disabled = !push.supported || blocked || !online || busy || push.subscribed === undefined;
  // One note at a time, the one that explains why the switch cannot be used.
  const note = !push.supported
    ? pushTexts.unsupported
    : blocked
      ? pushTexts.blocked
      : !online
        ? pushTexts.offline
        : null;

  const turnOn = async () => {
    // Only now, on the user's own request, does the browser ask.
    const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
    if (permission === 'denied') return; // The note explains it once the state is read again.
    if (permission !== 'granted') {
      setError(pushTexts.dismissed);
      return;
    }
    await subscribeToPush();
    onFlash({ kind: 'success', text: pushTexts.turnedOn });
  };

  const turnOff = async () => {
    await unsubscribeFromPush();
    onFlash({ kind: 'success', text: pushTexts.turnedOff });
  };

  const handleToggle = async () => {
    if (disabled) return;
    setError(null);
    setBusy(true);
    try {
      await (on ? turnOff() : turnOn());
    } catch (failure) {
      setError(pushFailureMessage(failure, !on));
    } finally {
      await push.refresh();
      setBusy(false);
    }
  };

  const NoteIcon = !online && push.supported && !blocked ? WifiOff : BellOff;

  return (
    <section className={styles.card} aria-labelledby="notifications-title">
      <div className={styles.cardHeader}>
        <h2 id="notifications-title" className={styles.cardTitle}>
          Notifications
        </h2>
      </div>
      <SwitchRow
        id="push-switch"
        icon={on ? <BellRing size={20} /> : <BellOff size={20} />}
        label={pushTexts.label}
        hint={pushTexts.hint}
        checked={on}
        busy={busy}
        disabled={disabled}
        noteId={note ? 'push-switch-note' : null}
        onToggle={() => void handleToggle()}
      />
      {note ? (
        <p id="push-switch-note" className={switchStyles.note} role="status">
          <NoteIcon size={16} aria-hidden="true" className={switchStyles.noteIcon} />
          <span>{note}</span>
        </p>
      ) : null}
      {error ? <FormAlert message={error} /> : null}
      <NotificationPreferencesForm />
    </section>
  );
}
