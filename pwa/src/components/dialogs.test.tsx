import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { deleteTaskConfirmation, logoutWithUnsyncedConfirmation } from '../app/confirmations';
import { AlertDialog, ConfirmDialog } from './dialogs';

// Server rendering runs no effects: enough to check what the dialogs say and how they are named.
const describedText = (html: string): string | undefined => {
  const id = /aria-describedby="([^"]+)"/.exec(html)?.[1];
  return id ? new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1] : undefined;
};

describe('the app’s dialogs', () => {
  test('a confirmation is an alertdialog named by its title, described by the spec’s question, Cancel first', () => {
    const html = renderToStaticMarkup(<ConfirmDialog request={deleteTaskConfirmation} onAnswer={() => undefined} />);
    expect(html).toContain('role="alertdialog"');
    expect(html).toContain('aria-modal="true"');
    expect(html).toMatch(/<h2 id="[^"]+"[^>]*>Delete Task<\/h2>/);
    expect(describedText(html)).toBe('Are you sure you want to delete this task?');
    expect(html.indexOf('>Cancel</button>')).toBeGreaterThan(0);
    expect(html.indexOf('>Delete</button>')).toBeGreaterThan(html.indexOf('>Cancel</button>'));
    expect(html).toMatch(/<button[^>]*data-initial-focus=""[^>]*>Cancel</);
  });

  test('an alert is an alertdialog with the failure as its description and one OK', () => {
    const html = renderToStaticMarkup(
      <AlertDialog
        request={{ title: 'Could not open the file', message: 'Failed to view file. Please try again.' }}
        onClose={() => undefined}
      />,
    );
    expect(html).toContain('role="alertdialog"');
    expect(describedText(html)).toBe('Failed to view file. Please try again.');
    expect(html).toMatch(/<button[^>]*data-initial-focus=""[^>]*>OK</);
  });

  test('logging out with unsynced changes names how many would be lost', () => {
    expect(logoutWithUnsyncedConfirmation(1).message).toBe(
      'You have 1 change that has not reached the server yet. If you log out now, they will be lost. Log out anyway?',
    );
    expect(logoutWithUnsyncedConfirmation(3).message).toMatch(/^You have 3 changes that have not reached/);
  });
});
