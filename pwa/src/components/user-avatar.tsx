import { useState } from 'react';
import { initialsOf } from './initials';
import styles from './user-avatar.module.css';

interface UserAvatarProps {
  /** Image URL, or null/empty for the initials. */
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
      style={{ width: size, height: size, fontSize: Math.max(10, Math.round(size * 0.38)) }}
      role="img"
      aria-label={`${name} avatar`}
    >
      {initialsOf(name)}
    </span>
  );
}

/**
 * One person's round avatar, the same on every screen: their image, or their initials when there
 * is none or it fails to load.
 */
export function UserAvatar({ src, name, size = 40, version = 0 }: UserAvatarProps) {
  if (!src) {
    return <AvatarPlaceholder name={name} size={size} />;
  }
  const url = withVersion(src, version);
  // Keyed by URL so a new image gets a fresh attempt after an earlier one failed.
  return <AvatarImage key={url} src={url} name={name} size={size} />;
}
