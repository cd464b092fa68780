import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { taskStatuses, uuidv7, type TaskStatus } from '@office/sync-protocol';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { statusLabels } from '../../components/tasks/task-display';
import { useMutate, useToday, useUsers } from '../../data/hooks';
import { writeErrorMessage } from './task-actions';
import { checkTaskFields, TaskFields, type TaskFieldValues } from './task-fields';
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

  const [values, setValues] = useState<TaskFieldValues>({
    title: '',
    description: '',
    assignedTo: '',
    dueDate: '',
    priority: 'medium',
  });
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
    const problem = checkTaskFields(values, today);
    if (problem !== null) {
      setError(problem);
      return;
    }
    setError(null);
    setSaving(true);
    const id = uuidv7();
    try {
      await mutate('task.create', { id, ...values, status });
    } catch (caught) {
      setSaving(false);
      // Spec section 8: "Failed to create task: " plus the message or "Unknown error", in the form's alert.
      setError(`${failureTexts.taskCreateFailed}${writeErrorMessage(caught)}`);
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
        <TaskFields
          values={values}
          onChange={(change) => setValues((current) => ({ ...current, ...change }))}
          employees={employees}
          minDueDate={today}
          besidePriority={
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
          }
        />
      </form>
    </Modal>
  );
}
