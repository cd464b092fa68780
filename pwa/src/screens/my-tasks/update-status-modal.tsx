import { useId, useState } from 'react';
import { Lock } from 'lucide-react';
import {
  canChangeTaskStatus,
  taskLimits,
  taskMessages,
  taskStatuses,
  type Actor,
  type TaskStatus,
} from '@office/sync-protocol';
import { Button } from '../../components/button';
import { Modal } from '../../components/modal';
import { StatusBadge } from '../../components/tasks/task-badges';
import { displayStatus, statusLabels } from '../../components/tasks/task-display';
import type { LocalTask } from '../../data/db';
import { useMutate } from '../../data/hooks';
import { exactTime, timeAgo } from '../dashboard/task-summary';
import { statusIcons } from './status-icons';
import styles from './update-status-modal.module.css';

/** Spec section 9: the status history shows the last 5 entries. */
const historyShown = 5;

interface UpdateStatusModalProps {
  task: LocalTask;
  actor: Actor;
  onClose: () => void;
}

/** "Update Task Status": pick a new status, add an optional note, see the recent history. */
export function UpdateStatusModal({ task, actor, onClose }: UpdateStatusModalProps) {
  const mutate = useMutate();
  const current = displayStatus(task.status);
  const [choice, setChoice] = useState<TaskStatus>(current);
  const [note, setNote] = useState('');
  const [saving, setSaving] = useState(false);
  const noteId = useId();
  const tilesLabelId = useId();
  const historyLabelId = useId();
  const allowed = canChangeTaskStatus(actor, task);
  const history = task.statusHistory.slice(-historyShown).reverse();

  const handleSubmit = async () => {
    if (choice === current || saving) return;
    setSaving(true);
    const trimmed = note.trim();
    try {
      // Resolves once stored on this device; the server hears of it when online.
      await mutate('task.setStatus', {
        id: task.id,
        status: choice,
        ...(trimmed ? { note: trimmed } : {}),
        baseStatusVersion: task.statusVersion,
      });
      onClose();
    } catch (error) {
      // Spec section 4: on failure the modal stays open and the error is only logged.
      console.error('Could not update the task status', error);
      setSaving(false);
    }
  };

  const footer = allowed ? (
    <>
      <Button variant="secondary" onClick={onClose}>
        Cancel
      </Button>
      <Button onClick={() => void handleSubmit()} disabled={choice === current} busy={saving}>
        {saving ? 'Updating...' : 'Update Status'}
      </Button>
    </>
  ) : undefined;

  return (
    <Modal title="Update Task Status" onClose={onClose} footer={footer}>
      <div className={styles.content}>
        <div className={styles.summary}>
          <p className={styles.taskTitle}>{task.title}</p>
          <p className={styles.current}>
            <span>Current Status:</span>
            <StatusBadge status={task.status} />
          </p>
        </div>

        {allowed ? (
          <>
            <div className={styles.field}>
              <span id={tilesLabelId} className={styles.label}>
                New Status
              </span>
              <div className={styles.tiles} role="group" aria-labelledby={tilesLabelId}>
                {taskStatuses.map((status) => {
                  const Icon = statusIcons[status];
                  const selected = choice === status;
                  return (
                    <button
                      key={status}
                      type="button"
                      className={`${styles.tile} ${styles[status]} ${selected ? styles.selected : ''}`}
                      aria-pressed={selected}
                      disabled={saving}
                      onClick={() => setChoice(status)}
                    >
                      <Icon size={20} aria-hidden="true" />
                      <span>{statusLabels[status]}</span>
                      {status === current ? (
                        <span className={styles.currentTag} aria-hidden="true">
                          Current
                        </span>
                      ) : null}
                    </button>
                  );
                })}
              </div>
            </div>

            <div className={styles.field}>
              <label htmlFor={noteId} className={styles.label}>
                Status Note (Optional)
              </label>
              <textarea
                id={noteId}
                className={styles.textarea}
                rows={3}
                maxLength={taskLimits.noteMax}
                placeholder="Add a note about this status change..."
                value={note}
                disabled={saving}
                onChange={(event) => setNote(event.target.value)}
              />
            </div>
          </>
        ) : (
          <p className={styles.denied} role="note">
            <Lock size={16} aria-hidden="true" />
            {taskMessages.noStatusPermission}
          </p>
        )}

        <section className={styles.history} aria-labelledby={historyLabelId}>
          <h3 id={historyLabelId} className={styles.label}>
            Status History
          </h3>
          {history.length === 0 ? (
            <p className={styles.historyEmpty}>No status changes yet.</p>
          ) : (
            <ol className={styles.historyList}>
              {history.map((entry) => (
                <li key={entry.id} className={`${styles.historyItem} ${entry.superseded ? styles.supersededItem : ''}`}>
                  <div className={styles.historyHead}>
                    <StatusBadge status={entry.status} />
                    <span className={styles.historyBy}>
                      by <strong>{entry.updatedBy?.name || 'Unknown'}</strong>
                    </span>
                    <time className={styles.historyTime} dateTime={entry.updatedAt} title={exactTime(entry.updatedAt)}>
                      {timeAgo(entry.updatedAt)}
                    </time>
                  </div>
                  {entry.note ? <p className={styles.historyNote}>{entry.note}</p> : null}
                  {entry.superseded ? <p className={styles.superseded}>Superseded by a later change</p> : null}
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </Modal>
  );
}
