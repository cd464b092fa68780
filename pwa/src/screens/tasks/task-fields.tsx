import { useId, type ReactNode } from 'react';
import { taskLimits, taskMessages, taskPriorities, type TaskPriority } from '@office/sync-protocol';
import { TextField } from '../../components/text-field';
import { priorityLabels } from '../../components/tasks/task-display';
import type { LocalUser } from '../../data/db';
import styles from './tasks.module.css';

/** What a manager sets on a task, in Create Task and in Edit Task. */
export interface TaskFieldValues {
  title: string;
  description: string;
  assignedTo: string;
  dueDate: string;
  priority: TaskPriority;
}

/**
 * The creation rules (spec section 5), for creating and editing alike: title, assignee and due date
 * are required, and the due date is today or later unless an edit leaves it as it was.
 */
export function checkTaskFields(values: TaskFieldValues, today: string, unchangedDueDate?: string): string | null {
  if (values.title.trim() === '' || values.assignedTo === '' || values.dueDate === '') return taskMessages.required;
  if (values.dueDate < today && values.dueDate !== unchangedDueDate) return taskMessages.dueDateInPast;
  return null;
}

interface TaskFieldsProps {
  values: TaskFieldValues;
  onChange: (change: Partial<TaskFieldValues>) => void;
  /** Employees only (spec section 6); undefined while the directory loads. */
  employees: LocalUser[] | undefined;
  /** The earliest due date the picker offers. */
  minDueDate: string;
  /** A field placed beside Priority (Create Task's initial status). */
  besidePriority?: ReactNode;
}

/** Title, description, assignee, due date and priority. */
export function TaskFields({ values, onChange, employees, minDueDate, besidePriority }: TaskFieldsProps) {
  const fieldId = useId();
  return (
    <>
      <TextField
        label="Title"
        value={values.title}
        onValueChange={(title) => onChange({ title })}
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
          value={values.description}
          maxLength={taskLimits.descriptionMax}
          placeholder="Add details, links or acceptance criteria..."
          onChange={(event) => onChange({ description: event.target.value })}
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
            value={values.assignedTo}
            required
            onChange={(event) => onChange({ assignedTo: event.target.value })}
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
            min={minDueDate}
            value={values.dueDate}
            required
            onChange={(event) => onChange({ dueDate: event.target.value })}
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
            value={values.priority}
            onChange={(event) => onChange({ priority: event.target.value as TaskPriority })}
          >
            {taskPriorities.map((value) => (
              <option key={value} value={value}>
                {priorityLabels[value]}
              </option>
            ))}
          </select>
        </div>
        {besidePriority}
      </div>
    </>
  );
}
