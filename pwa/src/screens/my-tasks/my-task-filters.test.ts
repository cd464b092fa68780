import { describe, expect, test } from 'vitest';
import { filterTasks, inOrder, isStatusFilter, keepOrder, tasksAssignedTo } from './my-task-filters';

const task = (title: string, description: string, status: string, assignee: string | null) => ({
  id: title,
  title,
  description,
  status,
  assignedTo: assignee ? { id: assignee } : null,
});

const tasks = [
  task('Prepare Q4 sales report', 'Summarise the quarter', 'working', 'alice'),
  task('Update onboarding checklist', 'Add the security training', 'pending', 'alice'),
  task('Design landing page', 'Three hero options', 'waiting', 'bob'),
  task('Renew licences', 'Design tool licences', 'completed', 'alice'),
  task('Orphaned task', 'Its assignee was removed', 'pending', null),
];

describe('tasksAssignedTo', () => {
  test('keeps only the tasks assigned to the user, in order', () => {
    expect(tasksAssignedTo(tasks, 'alice').map((t) => t.title)).toEqual([
      'Prepare Q4 sales report',
      'Update onboarding checklist',
      'Renew licences',
    ]);
  });
});

describe('filterTasks', () => {
  test('an empty search and All Status keep every task', () => {
    expect(filterTasks(tasks, '  ', 'all')).toHaveLength(tasks.length);
  });

  test('the search matches the title or the description, in any case', () => {
    expect(filterTasks(tasks, 'REPORT', 'all').map((t) => t.title)).toEqual(['Prepare Q4 sales report']);
    expect(filterTasks(tasks, 'design', 'all').map((t) => t.title)).toEqual(['Design landing page', 'Renew licences']);
  });

  test('the status filter keeps one status and combines with the search', () => {
    expect(filterTasks(tasks, '', 'pending').map((t) => t.title)).toEqual([
      'Update onboarding checklist',
      'Orphaned task',
    ]);
    expect(filterTasks(tasks, 'design', 'completed').map((t) => t.title)).toEqual(['Renew licences']);
    expect(filterTasks(tasks, 'nothing like this', 'all')).toEqual([]);
  });

  test('kept tasks stay listed whatever their status and text now', () => {
    const kept = new Set(['Prepare Q4 sales report']);
    expect(filterTasks(tasks, '', 'pending', kept).map((t) => t.title)).toEqual([
      'Prepare Q4 sales report',
      'Update onboarding checklist',
      'Orphaned task',
    ]);
    expect(filterTasks(tasks, 'licences', 'all', kept).map((t) => t.title)).toEqual([
      'Prepare Q4 sales report',
      'Renew licences',
    ]);
  });

  test('an unknown status is filtered as pending', () => {
    expect(filterTasks([task('Odd', '', 'archived', 'alice')], '', 'pending')).toHaveLength(1);
  });
});

test('only the four statuses and all are status filters', () => {
  expect(isStatusFilter('all')).toBe(true);
  expect(isStatusFilter('waiting')).toBe(true);
  expect(isStatusFilter('overdue')).toBe(false);
});

describe('keepOrder', () => {
  test('a known row keeps its place when the newest-first order would move it to the top', () => {
    expect(keepOrder(['a', 'b', 'c'], ['c', 'a', 'b'])).toEqual(['a', 'b', 'c']);
  });

  test('rows new to the list come first, rows that left are dropped', () => {
    expect(keepOrder(['a', 'b', 'c'], ['d', 'e', 'a', 'c'])).toEqual(['d', 'e', 'a', 'c']);
    expect(keepOrder([], ['b', 'a'])).toEqual(['b', 'a']);
  });

  test('answers the same array when no row came or went, so a caller can tell nothing changed', () => {
    const previous = ['a', 'b'];
    expect(keepOrder(previous, ['b', 'a'])).toBe(previous);
  });
});

test('inOrder sorts items by the given ids, unknown ones last', () => {
  const items = [{ id: 'x' }, { id: 'b' }, { id: 'a' }];
  expect(inOrder(items, ['a', 'b']).map((item) => item.id)).toEqual(['a', 'b', 'x']);
});
