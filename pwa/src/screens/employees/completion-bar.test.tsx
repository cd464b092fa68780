import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { CompletionBar } from './completion-bar';
import styles from './employees.module.css';

describe('the completion rate of an employee', () => {
  test('without tasks there is no rate: "No tasks" in neutral grey, no red 0% and no progress bar', () => {
    const html = renderToStaticMarkup(<CompletionBar rate={0} total={0} />);
    expect(html).toContain('No tasks');
    expect(html).not.toContain('0%');
    expect(html).not.toContain('role="progressbar"');
    expect(html).not.toContain(styles.poorText);
    expect(html).toContain(styles.noRate);
  });

  test('with tasks it is the percent, coloured by the spec’s thresholds', () => {
    const none = renderToStaticMarkup(<CompletionBar rate={0} total={3} />);
    expect(none).toContain('aria-valuetext="0%"');
    expect(none).toContain(styles.poorText);
    expect(renderToStaticMarkup(<CompletionBar rate={80} total={5} />)).toContain(styles.goodText);
  });
});
