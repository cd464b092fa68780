import type { Locator, Page } from '@playwright/test';
import type { ServerTask, TaskStatus } from './api-helpers';

// What the task screens show, read as a user reads them, and what the server's tasks should make of it: shared by
// the specs of the task screens (tasks.spec.ts) and of a device holding a window of them (history-tasks.spec.ts).

export const isOverdue = (task: ServerTask, today: string): boolean =>
  task.status !== 'completed' && task.dueDate < today;
export const sorted = (values: string[]): string[] => [...values].sort((a, b) => a.localeCompare(b));

/** /tasks: the card grid's items, and the titles shown, sorted. */
export const taskCards = (page: Page): Locator =>
  page.getByRole('list', { name: 'Tasks', exact: true }).getByRole('listitem');
export const shownTitles = async (page: Page): Promise<string[]> =>
  sorted(await taskCards(page).getByRole('heading', { level: 3 }).allTextContents());

/**
 * Every card's title, after "Show more tasks" has revealed the whole list (cards render 60 at a time). The
 * button also loads more by itself once scrolled into view, so it can be gone before a locator's click lands:
 * it is pressed from the page, where a missing button ends the loop instead of waiting for one.
 */
export async function allShownTitles(page: Page): Promise<string[]> {
  const pressShowMore = () =>
    page.evaluate(() => {
      const button = Array.from(document.querySelectorAll('button')).find((each) =>
        each.textContent?.startsWith('Show more tasks'),
      );
      button?.click();
      return button !== undefined;
    });
  while (await pressShowMore());
  return shownTitles(page);
}

/** The stat cards of a section: links to their lists on the dashboard, plain groups elsewhere. */
const statCardsIn = (region: Locator): Locator => region.locator(':scope > [aria-label]');

/** The stat cards of a section as { label: value }, read from their "Label: value" names. */
export async function statCards(region: Locator): Promise<Record<string, string>> {
  const names = await statCardsIn(region).evaluateAll((cards) =>
    cards.map((card) => card.getAttribute('aria-label') ?? ''),
  );
  return Object.fromEntries(names.map((name) => [name.slice(0, name.indexOf(':')), name.slice(name.indexOf(':') + 2)]));
}

/** The dashboard's task cards as the server's tasks make them. */
export function countsOf(tasks: ServerTask[], today: string): Record<string, string> {
  const of = (status: TaskStatus) => String(tasks.filter((task) => task.status === status).length);
  return {
    'Total Tasks': String(tasks.length),
    Pending: of('pending'),
    Working: of('working'),
    Completed: of('completed'),
    Waiting: of('waiting'),
    Overdue: String(tasks.filter((task) => isOverdue(task, today)).length),
  };
}
