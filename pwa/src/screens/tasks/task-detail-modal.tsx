import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { CalendarDays, History, MessageSquare, Pencil, Trash2 } from 'lucide-react';
import {
  canChangeTaskStatus,
  canManageTasks,
  formatDueDate,
  isOverdue,
  taskLimits,
  taskStatuses,
  uuidv7,
  type Actor,
  type TaskStatus,
} from '@office/sync-protocol';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { DueText } from '../../components/tasks/due-text';
import { OverdueBadge, PriorityBadge, StatusBadge } from '../../components/tasks/task-badges';
import { displayStatus, statusLabels } from '../../components/tasks/task-display';
import { dueLabel } from '../../components/tasks/task-due';
import { UserAvatar } from '../../components/user-avatar';
import type { LocalTask } from '../../data/db';
import { avatarOf, nameOf, type People } from '../../data/people';
import { draftKeys } from '../../data/drafts';
import { useMutate, useToday, useUsers } from '../../data/hooks';
import { useDraft } from '../../data/use-draft';
import { useWriteQueue } from '../../data/use-write-queue';
import { PendingMark } from '../../sync/pending-mark';
import { writeErrorMessage } from './task-actions';
import { checkTaskFields, TaskFields, type TaskFieldValues } from './task-fields';
import { formatTimestamp, relativeTime } from './task-format';
import { useNow } from '../../components/use-now';
import styles from './tasks.module.css';
import { failureTexts } from '../../app/failure-messages';

/** Spec section 9: the status history shows the last 5 entries. */
const historyShown = 5;

interface TaskDetailModalProps {
  task: LocalTask;
  actor: Actor;
  /** The directory: every person's name and avatar as it knows them now. */
  people: People;
  onClose: () => void;
  /** Deletes the task (managers and admins); without it the detail offers no Delete. */
  onDelete?: (taskId: string) => void;
}

/** A task in full: details, status, history and comments, with the Add Comment form. */
export function TaskDetailModal({ task, actor, people, onClose, onDelete }: TaskDetailModalProps) {
  const mutate = useMutate();
  const today = useToday();
  const now = useNow().getTime();
  const fieldId = useId();
  const comment = useDraft(draftKeys.taskComment(task.id));
  const commentWrites = useWriteQueue();
  const [statusError, setStatusError] = useState<string | null>(null);
  const [commentError, setCommentError] = useState<string | null>(null);
  // Edit Task (managers and admins): the fields being edited, or null while reading.
  const [editing, setEditing] = useState<TaskFieldValues | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const users = useUsers();
  const employees = users?.filter((user) => user.role === 'employee');
  const editFormId = useId();

  const isManager = canManageTasks(actor);
  // The assignee changes the status until the task is completed; managers and admins always may.
  const canEditStatus = canChangeTaskStatus(actor, task) && (isManager || task.status !== 'completed');
  const overdue = isOverdue(task, today);
  const history = task.statusHistory.slice(-historyShown).reverse();

  const handleStatusChange = async (status: TaskStatus) => {
    if (status === task.status) return;
    setStatusError(null);
    try {
      await mutate('task.setStatus', { id: task.id, status, baseStatusVersion: task.statusVersion });
    } catch (caught) {
      // Spec section 8: status-update failures are logged; a local one (a full disk) is also shown.
      console.error('Changing the task status failed', caught);
      setStatusError(writeErrorMessage(caught));
    }
  };

  // The comment leaves the box at once, so the next one can be written while it is stored; the
  // writes keep their order, and a comment that cannot be stored goes back into the box.
  const handleComment = (event?: FormEvent<HTMLFormElement>) => {
    event?.preventDefault();
    // Spec section 5: blank or whitespace-only text is ignored.
    if (comment.text.trim() === '') return;
    const taken = comment.take();
    const text = taken.text.trim();
    setCommentError(null);
    commentWrites
      .run(() => mutate('task.comment', { taskId: task.id, id: uuidv7(), text }))
      .catch((caught: unknown) => {
        taken.putBack();
        // Spec section 8: "Failed to add comment: " plus the error, shown beside the comment it is about.
        setCommentError(`${failureTexts.commentFailed}${writeErrorMessage(caught)}`);
      });
  };

  const startEditing = () => {
    setEditError(null);
    setEditing({
      title: task.title,
      description: task.description,
      assignedTo: task.assignedTo?.id ?? '',
      dueDate: task.dueDate,
      priority: task.priority,
    });
  };

  /** Saves only what changed, as one queued `task.edit`; the same rules as Create Task. */
  const handleEditSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (editing === null) return;
    const problem = checkTaskFields(editing, today, task.dueDate);
    if (problem !== null) {
      setEditError(problem);
      return;
    }
    const changes = {
      ...(editing.title.trim() !== task.title ? { title: editing.title } : {}),
      ...(editing.description.trim() !== task.description ? { description: editing.description } : {}),
      ...(editing.assignedTo !== (task.assignedTo?.id ?? '') ? { assignedTo: editing.assignedTo } : {}),
      ...(editing.dueDate !== task.dueDate ? { dueDate: editing.dueDate } : {}),
      ...(editing.priority !== task.priority ? { priority: editing.priority } : {}),
    };
    try {
      if (Object.keys(changes).length > 0) await mutate('task.edit', { id: task.id, ...changes });
      setEditing(null);
    } catch (caught) {
      setEditError(`${failureTexts.taskUpdateFailed}${writeErrorMessage(caught)}`);
    }
  };

  if (editing !== null) {
    return (
      <Modal
        title="Edit Task"
        onClose={() => setEditing(null)}
        footer={
          <>
            <Button variant="secondary" onClick={() => setEditing(null)}>
              Cancel
            </Button>
            <Button type="submit" form={editFormId}>
              Save Changes
            </Button>
          </>
        }
      >
        <form id={editFormId} className={styles.form} noValidate onSubmit={(event) => void handleEditSubmit(event)}>
          {editError !== null && <FormAlert message={editError} />}
          <TaskFields
            values={editing}
            onChange={(change) => setEditing((current) => (current ? { ...current, ...change } : current))}
            employees={employees}
            minDueDate={task.dueDate < today ? task.dueDate : today}
          />
        </form>
      </Modal>
    );
  }

  const handleCommentKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) handleComment();
  };

  return (
    <Modal
      title={task.title}
      size="large"
      onClose={onClose}
      footer={
        <>
          {isManager && (
            <Button variant="secondary" size="small" onClick={startEditing}>
              <Pencil size={16} aria-hidden="true" />
              Edit Task
            </Button>
          )}
          {isManager && onDelete && (
            <Button variant="danger" size="small" onClick={() => onDelete(task.id)}>
              <Trash2 size={16} aria-hidden="true" />
              Delete Task
            </Button>
          )}
          <Button variant="secondary" size="small" onClick={onClose}>
            Close
          </Button>
        </>
      }
    >
      <div className={styles.detail}>
        {(overdue || task.pending === 1) && (
          <div className={styles.badges}>
            {overdue && <OverdueBadge />}
            {task.pending === 1 && (
              <span className={styles.pendingNote}>
                <PendingMark />
                Saved on this device, waiting to sync
              </span>
            )}
          </div>
        )}

        <section className={styles.section}>
          <h3 className={styles.sectionTitle}>Description</h3>
          {task.description.trim() !== '' ? (
            <p className={styles.description}>{task.description}</p>
          ) : (
            <p className={`${styles.description} ${styles.muted}`}>No description provided.</p>
          )}
        </section>

        <dl className={styles.facts}>
          <div className={styles.fact}>
            <dt>Assigned to</dt>
            <dd className={styles.person}>
              {task.assignedTo ? (
                <>
                  <UserAvatar
                    src={avatarOf(people, task.assignedTo.id)}
                    name={nameOf(people, task.assignedTo)}
                    size={24}
                  />
                  {nameOf(people, task.assignedTo)}
                </>
              ) : (
                <span className={styles.muted}>Unassigned</span>
              )}
            </dd>
          </div>
          <div className={styles.fact}>
            <dt>Assigned by</dt>
            <dd className={styles.person}>
              <UserAvatar src={avatarOf(people, task.assignedBy.id)} name={nameOf(people, task.assignedBy)} size={24} />
              {nameOf(people, task.assignedBy)}
            </dd>
          </div>
          <div className={styles.fact}>
            <dt>Priority</dt>
            <dd>
              <PriorityBadge priority={task.priority} />
            </dd>
          </div>
          <div className={styles.fact}>
            {canEditStatus ? (
              <>
                <dt>
                  <label htmlFor={`${fieldId}-status`}>Status</label>
                </dt>
                <dd>
                  <select
                    id={`${fieldId}-status`}
                    className={`${styles.select} ${styles.statusSelect}`}
                    value={displayStatus(task.status)}
                    onChange={(event) => void handleStatusChange(event.target.value as TaskStatus)}
                  >
                    {taskStatuses.map((value) => (
                      <option key={value} value={value}>
                        {statusLabels[value]}
                      </option>
                    ))}
                  </select>
                </dd>
              </>
            ) : (
              <>
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={task.status} />
                </dd>
              </>
            )}
          </div>
          <div className={`${styles.fact} ${styles.factWide}`}>
            <dt>Due date</dt>
            <dd className={styles.dueFact}>
              <span className={styles.person}>
                <CalendarDays size={16} aria-hidden="true" className={styles.dueIcon} />
                {formatDueDate(task.dueDate)}
              </span>
              <DueText label={dueLabel(task, today, now)} />
            </dd>
          </div>
          <div className={styles.fact}>
            <dt>Created</dt>
            <dd title={formatTimestamp(task.createdAt)}>{relativeTime(task.createdAt, now)}</dd>
          </div>
          <div className={styles.fact}>
            <dt>Last updated</dt>
            <dd title={formatTimestamp(task.updatedAt)}>{relativeTime(task.updatedAt, now)}</dd>
          </div>
        </dl>
        {statusError !== null && <FormAlert message={statusError} />}

        <section className={styles.section}>
          <h3 className={styles.sectionTitle}>
            <History size={16} aria-hidden="true" />
            Status History
          </h3>
          {history.length === 0 ? (
            <p className={styles.muted}>No status changes yet.</p>
          ) : (
            <ol className={styles.timeline}>
              {history.map((entry) => (
                <li key={entry.id} className={`${styles.timelineItem} ${entry.superseded ? styles.superseded : ''}`}>
                  <div className={styles.timelineHead}>
                    <StatusBadge status={entry.status} />
                    <span className={styles.timelineWho}>{nameOf(people, entry.updatedBy) || 'Unknown'}</span>
                    <span className={styles.timelineWhen} title={formatTimestamp(entry.updatedAt)}>
                      {relativeTime(entry.updatedAt, now)}
                    </span>
                  </div>
                  {entry.note !== null && entry.note !== '' && <p className={styles.timelineNote}>{entry.note}</p>}
                  {entry.superseded && <p className={styles.supersededNote}>Superseded by a later change</p>}
                </li>
              ))}
            </ol>
          )}
        </section>

        <section className={styles.section}>
          <h3 className={styles.sectionTitle}>
            <MessageSquare size={16} aria-hidden="true" />
            Comments
            <span className={styles.count}>{task.comments.length}</span>
          </h3>
          {task.comments.length === 0 ? (
            <p className={styles.muted}>No comments yet. Start the conversation below.</p>
          ) : (
            <ul className={styles.comments}>
              {task.comments.map((entry) => {
                const author = nameOf(people, { id: entry.userId, name: entry.userName });
                return (
                  <li key={entry.id} className={styles.comment}>
                    <UserAvatar src={avatarOf(people, entry.userId)} name={author} size={32} />
                    <div className={styles.commentBody}>
                      <div className={styles.commentHead}>
                        <span className={styles.commentAuthor}>{author}</span>
                        <span className={styles.commentWhen} title={formatTimestamp(entry.createdAt)}>
                          {relativeTime(entry.createdAt, now)}
                        </span>
                      </div>
                      <p className={styles.commentText}>{entry.text}</p>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
          <form className={styles.commentForm} onSubmit={handleComment}>
            {commentError !== null && <FormAlert message={commentError} />}
            <textarea
              className={styles.textarea}
              aria-label="Add a comment"
              placeholder="Write a comment..."
              rows={3}
              maxLength={taskLimits.commentMax}
              value={comment.text}
              onChange={(event) => comment.change(event.target.value)}
              onKeyDown={handleCommentKeyDown}
            />
            <div className={styles.commentActions}>
              <span className={styles.hint}>Ctrl + Enter to send</span>
              <Button type="submit" size="small" busy={commentWrites.busy}>
                Add Comment
              </Button>
            </div>
          </form>
        </section>
      </div>
    </Modal>
  );
}
