import { describe, expect, test } from 'vitest';
import { emptyStateText, filterTasks, showMoreTasksLabel, type TaskFilters } from './task-filters';

const today = '2030-06-15';
const tasks = [
  { id: 'a', title: 'Quarterly report', description: 'Numbers for Q2', status: 'pending', dueDate: '2030-06-10' },
  { id: 'b', title: 'Office move', description: 'Book the VAN', status: 'working', dueDate: '2030-06-20' },
  { id: 'c', title: 'Archive invoices', description: '', status: 'completed', dueDate: '2030-06-01' },
];
const none: TaskFilters = { search: '', status: '', overdueOnly: false };
const ids = (filters: TaskFilters) => filterTasks(tasks, filters, today).map((task) => task.id);

describe('filterTasks', () => {
  test('no filter keeps every task in order', () => {
    expect(ids(none)).toEqual(['a', 'b', 'c']);
  });

  test('search matches the title or the description, ignoring case and surrounding spaces', () => {
    expect(ids({ ...none, search: '  REPORT ' })).toEqual(['a']);
    expect(ids({ ...none, search: 'van' })).toEqual(['b']);
  });

  test('the status filter keeps only that status', () => {
    expect(ids({ ...none, status: 'completed' })).toEqual(['c']);
  });

  test('the overdue filter keeps past-due tasks that are not completed', () => {
    expect(ids({ ...none, overdueOnly: true })).toEqual(['a']);
  });

  test('filters combine', () => {
    expect(ids({ search: 'office', status: 'pending', overdueOnly: false })).toEqual([]);
  });
});

describe('emptyStateText', () => {
  test('says so when there are no tasks at all', () => {
    expect(emptyStateText(0, { ...none, status: 'working' })).toBe('No tasks have been created yet.');
  });

  test('names the status when only the status filter matched nothing', () => {
    expect(emptyStateText(3, { ...none, status: 'waiting' })).toBe('No tasks with status "Waiting" found.');
  });

  test('speaks of the filters when a search or the overdue filter is active', () => {
    expect(emptyStateText(3, { ...none, search: 'zzz' })).toBe('No tasks match your current filters.');
    expect(emptyStateText(3, { ...none, status: 'waiting', overdueOnly: true })).toBe(
      'No tasks match your current filters.',
    );
  });
});

describe('showMoreTasksLabel', () => {
  test('the button says how many tasks are left, with thousands separated', () => {
    expect(showMoreTasksLabel(10)).toBe('Show more tasks (10 left)');
    expect(showMoreTasksLabel(4940)).toBe('Show more tasks (4,940 left)');
  });
});
