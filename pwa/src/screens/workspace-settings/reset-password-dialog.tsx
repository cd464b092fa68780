import { useId, useRef, useState } from 'react';
import { KeyRound, ShieldAlert, WifiOff } from 'lucide-react';
import { accessTexts, limits, type PasswordResetResponse } from '@office/sync-protocol';
import { resetPasswordRequest } from '../../api/access-api';
import { serverMessageOr } from '../../api/http';
import { Button } from '../../components/button';
import { CopyButton } from '../../components/copy-button';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { useOnline } from '../../data/hooks';
import { formatTimestamp } from '../tasks/task-format';
import employeeStyles from '../employees/employees.module.css';
import styles from './workspace-settings.module.css';

interface ResetPasswordDialogProps {
  person: { id: string; name: string };
  onClose: () => void;
}

const RESET_FAILED = 'Could not reset the password. Please try again.';

/**
 * "Reset password": confirms, asks the server (a call, never queued: it ends the person's sessions), then shows the
 * one-time code once, with a copy button. The code is not kept anywhere on this device.
 */
export function ResetPasswordDialog({ person, onClose }: ResetPasswordDialogProps) {
  const online = useOnline();
  const codeLabelId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reset, setReset] = useState<PasswordResetResponse | null>(null);
  // The dialog stays while the call runs, so its outcome (the code) is always shown.
  const busyRef = useRef(false);

  const handleClose = () => {
    if (!busyRef.current) onClose();
  };

  const handleReset = async () => {
    if (!online) {
      setError(accessTexts.resetNeedsNetwork);
      return;
    }
    busyRef.current = true;
    setBusy(true);
    setError(null);
    try {
      setReset(await resetPasswordRequest(person.id));
    } catch (failure) {
      setError(serverMessageOr(failure, RESET_FAILED));
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  if (reset !== null) {
    return (
      <Modal
        title="Reset password"
        size="small"
        onClose={onClose}
        footer={
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        }
      >
        <div className={styles.dialogBody}>
          <p role="status">{accessTexts.resetDone(person.name)}</p>
          <div className={styles.codeBox}>
            <span className={styles.codeLabel} id={codeLabelId}>
              One-time code
            </span>
            <output className={styles.code} aria-labelledby={codeLabelId}>
              {reset.code}
            </output>
            <CopyButton text={reset.code} label="Copy code" />
          </div>
          <p className={styles.muted}>
            It is shown only this once. It signs in once, until {formatTimestamp(reset.expiresAt)}; then {person.name}{' '}
            must choose a new password. Give it to them in person or by phone.
          </p>
        </div>
      </Modal>
    );
  }

  return (
    <Modal
      title="Reset password"
      size="small"
      onClose={handleClose}
      footer={
        <>
          <Button variant="secondary" onClick={handleClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} onClick={() => void handleReset()}>
            <KeyRound size={16} aria-hidden="true" />
            {busy ? 'Resetting...' : 'Reset password'}
          </Button>
        </>
      }
    >
      <div className={styles.dialogBody}>
        <div className={employeeStyles.warning}>
          <ShieldAlert size={20} aria-hidden="true" className={employeeStyles.warningIcon} />
          <div>
            <p className={employeeStyles.warningTitle}>
              Reset <strong>{person.name}</strong>&apos;s password?
            </p>
            <p className={employeeStyles.warningText}>
              They are signed out on every device at once. You get a one-time code to give them; it works once, for{' '}
              {limits.resetCodeTtlHours} hours, and they must then choose a new password.
            </p>
          </div>
        </div>
        {!online && (
          <p className={employeeStyles.offlineNote}>
            <WifiOff size={16} aria-hidden="true" />
            {accessTexts.resetNeedsNetwork}
          </p>
        )}
        {error !== null && <FormAlert message={error} />}
      </div>
    </Modal>
  );
}
