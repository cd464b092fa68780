/** How long a message reached from search stays highlighted (message-list.module.css animates it). */
export const foundHighlightMs = 2_400;

/**
 * Scrolls the message `id` of a message list to the middle of the list and highlights it briefly (the
 * `data-found` attribute, which React does not manage, so a re-render keeps it). Answers false while
 * the message is not rendered yet.
 */
export function showFoundMessage(list: HTMLElement, id: string): boolean {
  const element = messageElement(list, id);
  if (!(element instanceof HTMLElement)) return false;
  // The list alone scrolls: `scrollIntoView` would also scroll the page around it and push the header away.
  const offset = element.getBoundingClientRect().top - list.getBoundingClientRect().top;
  list.scrollTop += offset - (list.clientHeight - element.offsetHeight) / 2;
  element.setAttribute('data-found', '');
  window.setTimeout(() => element.removeAttribute('data-found'), foundHighlightMs);
  return true;
}

/** Where a message's element is in a list's content, in pixels from its top. */
export const contentTop = (list: HTMLElement, element: Element): number =>
  element.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;

/** A message's element in a message list. */
export const messageElement = (list: HTMLElement, id: string): Element | null =>
  list.querySelector(`[data-message-id="${CSS.escape(id)}"]`);
