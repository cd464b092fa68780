import { useRef, useState } from 'react';
import { AlertTriangle, WifiOff } from 'lucide-react';
import { deleteEmployeeRequest } from '../../api/auth-api';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { failureTexts } from '../../app/failure-messages';
import { useOnline } from '../../data/hooks';
import { deleteErrorMessage } from './employee-format';
import styles from './employees.module.css';

interface DeleteEmployeeModalProps {
  employee: { id: string; name: string };
  onClose: () => void;
  /** After the server deleted the employee; the list follows by itself when sync removes the user. */
  onDeleted: (name: string) => void;
}

/**
 * Confirms and deletes an employee. This is a call, never a queued write: it ends the employee's
 * sessions, so it needs the server now, and offline it fails with the spec's "try again" message.
 */
export function DeleteEmployeeModal({ employee, onClose, onDeleted }: DeleteEmployeeModalProps) {
  const online = useOnline();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Read by the close handler: the dialog stays while the call runs, so its outcome is always shown.
  const busyRef = useRef(false);

  const handleClose = () => {
    if (!busyRef.current) onClose();
  };

  const handleDelete = async () => {
    busyRef.current = true;
    setBusy(true);
    setError(null);
    try {
      const answer = await deleteEmployeeRequest(employee.id);
      if (answer.success === false) {
        setError(answer.message.trim() === '' ? failureTexts.employeeDeleteFailed : answer.message);
        return;
      }
      onDeleted(employee.name);
    } catch (cause) {
      setError(deleteErrorMessage(cause));
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  return (
    <Modal
      title="Delete Employee"
      size="small"
      onClose={handleClose}
      footer={
        <>
          <Button variant="secondary" onClick={handleClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} onClick={() => void handleDelete()}>
            {busy ? 'Deleting...' : 'Delete Employee'}
          </Button>
        </>
      }
    >
      <div className={styles.confirm}>
        <div className={styles.warning}>
          <AlertTriangle size={20} aria-hidden="true" className={styles.warningIcon} />
          <div>
            <p className={styles.warningTitle}>
              Are you sure you want to delete <strong>{employee.name}</strong>?
            </p>
            <p className={styles.warningText}>
              They will be signed out and can no longer sign in. Their messages, comments and task history are kept;
              their open tasks become unassigned. This cannot be undone.
            </p>
          </div>
        </div>
        {!online && (
          <p className={styles.offlineNote}>
            <WifiOff size={16} aria-hidden="true" />
            You are offline. Deleting an employee needs a connection.
          </p>
        )}
        {error !== null && <FormAlert message={error} />}
      </div>
    </Modal>
  );
}
