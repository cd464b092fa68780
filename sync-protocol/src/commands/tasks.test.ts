import { describe, expect, test } from 'vitest';
import { canEditTask } from '../policies/tasks';
import { dueDateSchema, editTaskArgsSchema, taskMessages } from './tasks';

describe('due dates', () => {
  test.each(['2099-02-28', '2096-02-29', '2000-02-29', '2099-12-31', '2099-01-01'])('%s is a real day', (date) => {
    expect(dueDateSchema.safeParse(date).success).toBe(true);
  });

  test.each(['2099-02-30', '2100-02-29', '2099-13-01', '2099-00-10', '2099-04-31', '2099-01-00', '2099-1-5'])(
    '%s is refused',
    (date) => {
      const issue = dueDateSchema.safeParse(date).error?.issues[0];
      expect(issue?.message).toMatch(new RegExp(`${taskMessages.dueDateNotReal}|YYYY-MM-DD`));
    },
  );
});

describe('task.edit', () => {
  const id = '01890000-0000-7000-8000-000000000001';
  const assignee = { id: '01890000-0000-7000-8000-0000000000a1', role: 'employee' as const };
  const other = { id: '01890000-0000-7000-8000-0000000000a2', role: 'employee' as const };
  const manager = { id: '01890000-0000-7000-8000-0000000000a3', role: 'manager' as const };
  const task = { assignedTo: { id: assignee.id }, assignedBy: { id: manager.id } };

  test('carries fields, a status with its note and base version, or both', () => {
    expect(editTaskArgsSchema.parse({ id, title: ' New ', status: 'waiting', note: 'Parked' })).toEqual({
      id,
      title: 'New',
      status: 'waiting',
      note: 'Parked',
    });
    expect(editTaskArgsSchema.safeParse({ id, dueDate: '2099-13-45' }).success).toBe(false);
  });

  test('managers edit anything; the assignee changes the status only; another employee nothing', () => {
    expect(canEditTask(manager, task, { fields: true, status: true })).toBe(true);
    expect(canEditTask(assignee, task, { fields: false, status: true })).toBe(true);
    expect(canEditTask(assignee, task, { fields: true, status: false })).toBe(false);
    expect(canEditTask(assignee, task, { fields: true, status: true })).toBe(false);
    expect(canEditTask(other, task, { fields: false, status: true })).toBe(false);
  });
});
