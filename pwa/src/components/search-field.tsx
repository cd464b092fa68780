import { Search } from 'lucide-react';
import styles from './search-field.module.css';

interface SearchFieldProps {
  /** The spec's placeholder, e.g. "Search tasks..."; it also names the field. */
  placeholder: string;
  value: string;
  onValueChange: (value: string) => void;
}

/** The search box of a list screen: a magnifier and a search input named by its placeholder. */
export function SearchField({ placeholder, value, onValueChange }: SearchFieldProps) {
  return (
    <div className={styles.field}>
      <Search size={18} aria-hidden="true" className={styles.icon} />
      <input
        type="search"
        className={styles.input}
        placeholder={placeholder}
        aria-label={placeholder}
        value={value}
        onChange={(event) => onValueChange(event.target.value)}
      />
    </div>
  );
}
