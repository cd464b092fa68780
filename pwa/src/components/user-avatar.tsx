import { useState } from 'react';
import { UserRound } from 'lucide-react';
import styles from './user-avatar.module.css';

interface UserAvatarProps {
  /** Image URL, or null/empty for the placeholder. */
  src: string | null | undefined;
  /** Whose avatar: becomes the image's alternative text. */
  name: string;
  size?: number;
  /** Bumped to reload the same URL after the image changed on the server. */
  version?: number;
}

/** Adds a cache-busting query to http(s) and relative URLs; data: and blob: URLs never go stale. */
function withVersion(src: string, version: number): string {
  if (version === 0 || /^(data|blob):/i.test(src)) {
    return src;
  }
  return `${src}${src.includes('?') ? '&' : '?'}v=${version}`;
}

function AvatarImage({ src, name, size }: { src: string; name: string; size: number }) {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return <AvatarPlaceholder name={name} size={size} />;
  }
  return (
    <img
      className={styles.avatar}
      src={src}
      alt={`${name} avatar`}
      width={size}
      height={size}
      onError={() => setFailed(true)}
    />
  );
}

function AvatarPlaceholder({ name, size }: { name: string; size: number }) {
  return (
    <span
      className={`${styles.avatar} ${styles.placeholder}`}
      style={{ width: size, height: size }}
      role="img"
      aria-label={`${name} avatar`}
    >
      <UserRound size={Math.round(size * 0.55)} aria-hidden="true" />
    </span>
  );
}

/** A round avatar; a placeholder icon when there is no image or the image fails to load. */
export function UserAvatar({ src, name, size = 40, version = 0 }: UserAvatarProps) {
  if (!src) {
    return <AvatarPlaceholder name={name} size={size} />;
  }
  const url = withVersion(src, version);
  // Keyed by URL so a new image gets a fresh attempt after an earlier one failed.
  return <AvatarImage key={url} src={url} name={name} size={size} />;
}
