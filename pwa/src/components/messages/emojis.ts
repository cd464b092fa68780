/** The emoji picker's grid: common faces, gestures, hearts and objects of office talk. */
// prettier-ignore
export const chatEmojis = [
  '😀', '😃', '😄', '😁', '😆', '😅', '😂', '🤣',
  '😊', '😇', '🙂', '😉', '😍', '🥰', '😘', '😋',
  '😎', '🤓', '🤔', '🤨', '😐', '🙄', '😏', '😬',
  '😌', '😴', '😷', '🤯', '🥳', '😮', '😢', '😭',
  '😤', '😡', '🤗', '🤭', '🫡', '🙃', '😱', '🥲',
  '👍', '👎', '👏', '🙌', '🙏', '👋', '💪', '🤝',
  '✌️', '👌', '🤞', '👀', '❤️', '🧡', '💛', '💚',
  '💙', '💜', '🔥', '✨', '🎉', '🎊', '✅', '❌',
  '⭐', '💯', '🚀', '💡', '📌', '📎', '📅', '☕',
] as const;

/** Spec section 2: the direct-message picker has 50 emojis. */
export const directEmojis = chatEmojis.slice(0, 50);
