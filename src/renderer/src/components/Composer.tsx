/** The message box: Enter sends (or Ctrl+Enter, per settings), Escape stops a running reply. */
import {
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useRef,
  useState,
} from 'react';

export function Composer({
  busy,
  disabled,
  enterSends,
  onSend,
  onCancel,
  toolbar,
  disabledReason,
}: {
  /** Said in the box while it is disabled. */
  disabledReason?: string;
  busy: boolean;
  disabled: boolean;
  enterSends: boolean;
  onSend: (text: string) => Promise<boolean>;
  onCancel: () => void;
  /** Shown under the message box (the model picker). */
  toolbar?: ReactNode;
}) {
  const [draft, setDraft] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);

  // Keyboard first: a new or opened conversation is ready to type into.
  useEffect(() => {
    box.current?.focus();
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the height follows the text
  useEffect(() => {
    const area = box.current;
    if (!area) return;
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, 240)}px`;
  }, [draft]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || busy || disabled) return;
    setDraft('');
    // A refused send gives the words back rather than losing them.
    if (!(await onSend(text))) setDraft(text);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Escape' && busy) {
      event.preventDefault();
      onCancel();
      return;
    }
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    const modifier = event.ctrlKey || event.metaKey;
    if ((enterSends && !event.shiftKey) || modifier) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form className="composer" onSubmit={submit}>
      <div className="composer-row">
        <textarea
          ref={box}
          aria-label="Message"
          rows={1}
          value={draft}
          disabled={disabled}
          maxLength={100_000}
          placeholder={
            disabled
              ? (disabledReason ?? 'Not connected')
              : enterSends
                ? 'Message Pincer (Enter to send, Shift+Enter for a new line)'
                : 'Message Pincer (Ctrl+Enter to send)'
          }
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {busy && !disabled ? (
          <button type="button" className="danger" onClick={onCancel} title="Escape">
            Stop <kbd>Esc</kbd>
          </button>
        ) : (
          <button type="submit" className="primary" disabled={disabled || !draft.trim()}>
            Send
          </button>
        )}
      </div>
      {toolbar && <div className="composer-toolbar">{toolbar}</div>}
    </form>
  );
}
