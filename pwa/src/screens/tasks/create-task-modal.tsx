import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import {
  taskLimits,
  taskMessages,
  taskPriorities,
  taskStatuses,
  uuidv7,
  type TaskPriority,
  type TaskStatus,
} from '@office/sync-protocol';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { TextField } from '../../components/text-field';
import { priorityLabels, statusLabels } from '../../components/tasks/task-display';
import { useMutate, useToday, useUsers } from '../../data/hooks';
import { writeErrorMessage } from './task-actions';
import styles from './tasks.module.css';
import { failureTexts } from '../../app/failure-messages';

interface CreateTaskModalProps {
  onClose: () => void;
  /** Called with the new task's id once it is stored on this device. */
  onCreated: (taskId: string) => void;
}

/** "Create Task": stored locally at once, so it works offline and shows as pending until synced. */
export function CreateTaskModal({ onClose, onCreated }: CreateTaskModalProps) {
  const mutate = useMutate();
  const today = useToday();
  const users = useUsers();
  // Spec section 6: the assignment list holds only employees.
  const employees = users?.filter((user) => user.role === 'employee');
  const formId = useId();
  const fieldId = useId();

  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [assignedTo, setAssignedTo] = useState('');
  const [dueDate, setDueDate] = useState('');
  const [priority, setPriority] = useState<TaskPriority>('medium');
  const [status, setStatus] = useState<TaskStatus>('pending');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  // The dialog takes focus when it opens; on wide screens move it on to the title. Phones keep
  // their keyboard closed until the user taps a field.
  useEffect(() => {
    if (window.matchMedia('(min-width: 769px)').matches) formRef.current?.querySelector('input')?.focus();
  }, []);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (saving) return;
    if (title.trim() === '' || assignedTo === '' || dueDate === '') {
      setError(taskMessages.required);
      return;
    }
    if (dueDate < today) {
      setError(taskMessages.dueDateInPast);
      return;
    }
    setError(null);
    setSaving(true);
    const id = uuidv7();
    try {
      await mutate('task.create', { id, title, description, assignedTo, priority, status, dueDate });
    } catch (caught) {
      setSaving(false);
      // Spec section 8: "Failed to create task: " plus the message or "Unknown error".
      window.alert(`${failureTexts.taskCreateFailed}${writeErrorMessage(caught)}`);
      return;
    }
    onCreated(id);
  };

  return (
    <Modal
      title="Create Task"
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} busy={saving}>
            {saving ? 'Creating...' : 'Create Task'}
          </Button>
        </>
      }
    >
      <form ref={formRef} id={formId} className={styles.form} noValidate onSubmit={(event) => void handleSubmit(event)}>
        {error !== null && <FormAlert message={error} />}
        <TextField
          label="Title"
          value={title}
          onValueChange={setTitle}
          placeholder="What needs to be done?"
          maxLength={taskLimits.titleMax}
          required
        />
        <div className={styles.field}>
          <label className={styles.label} htmlFor={`${fieldId}-description`}>
            Description <span className={styles.optional}>(optional)</span>
          </label>
          <textarea
            id={`${fieldId}-description`}
            className={styles.textarea}
            rows={4}
            value={description}
            maxLength={taskLimits.descriptionMax}
            placeholder="Add details, links or acceptance criteria..."
            onChange={(event) => setDescription(event.target.value)}
          />
        </div>
        <div className={styles.formRow}>
          <div className={styles.field}>
            <label className={styles.label} htmlFor={`${fieldId}-assignee`}>
              Assign To
            </label>
            <select
              id={`${fieldId}-assignee`}
              className={styles.select}
              value={assignedTo}
              required
              onChange={(event) => setAssignedTo(event.target.value)}
            >
              <option value="">{employees === undefined ? 'Loading...' : 'Select an employee'}</option>
              {employees?.map((employee) => (
                <option key={employee.id} value={employee.id}>
                  {employee.name}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label className={styles.label} htmlFor={`${fieldId}-due`}>
              Due Date
            </label>
            <input
              id={`${fieldId}-due`}
              className={styles.input}
              type="date"
              min={today}
              value={dueDate}
              required
              onChange={(event) => setDueDate(event.target.value)}
            />
          </div>
        </div>
        <div className={`${styles.formRow} ${styles.formRowCompact}`}>
          <div className={styles.field}>
            <label className={styles.label} htmlFor={`${fieldId}-priority`}>
              Priority
            </label>
            <select
              id={`${fieldId}-priority`}
              className={styles.select}
              value={priority}
              onChange={(event) => setPriority(event.target.value as TaskPriority)}
            >
              {taskPriorities.map((value) => (
                <option key={value} value={value}>
                  {priorityLabels[value]}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label className={styles.label} htmlFor={`${fieldId}-status`}>
              Initial Status
            </label>
            <select
              id={`${fieldId}-status`}
              className={styles.select}
              value={status}
              onChange={(event) => setStatus(event.target.value as TaskStatus)}
            >
              {taskStatuses.map((value) => (
                <option key={value} value={value}>
                  {statusLabels[value]}
                </option>
              ))}
            </select>
          </div>
        </div>
      </form>
    </Modal>
  );
}
