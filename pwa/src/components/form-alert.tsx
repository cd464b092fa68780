import { CircleAlert } from 'lucide-react';
import styles from './form-alert.module.css';

/** The red error banner of a form (spec section 2: "Errors show in a red banner"). */
export function FormAlert({ message }: { message: string }) {
  return (
    <div className={styles.alert} role="alert">
      <CircleAlert size={18} aria-hidden="true" className={styles.icon} />
      <span>{message}</span>
    </div>
  );
}
