import { Fragment } from 'react';

/** Text with every occurrence of the search marked, ignoring case. */
export function Highlight({ text, search }: { text: string; search: string }) {
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return <>{text}</>;
  const lower = text.toLocaleLowerCase();
  const parts: { text: string; match: boolean }[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + needle.length), match: true });
    from = at + needle.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), match: false });
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>{part.match ? <mark>{part.text}</mark> : part.text}</Fragment>
      ))}
    </>
  );
}
