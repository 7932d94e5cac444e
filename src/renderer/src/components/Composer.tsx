/**
 * The message box: Enter sends (or Ctrl+Enter, per settings), Escape stops a running reply.
 * Text files and images attach by the button, by dropping them on the box or by pasting them;
 * images show as thumbnails, and a model that takes no images is said before sending.
 */
import {
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useRef,
  useState,
} from 'react';
import { type Attachment, imageDataUrl } from '../../../shared/ipc';
import { addAttachments, type ImageAttachment } from '../lib/attach';

export const TEXT_ONLY_MODEL =
  'The selected model does not take images; pick one that does, or remove the images.';

export function Composer({
  busy,
  disabled,
  enterSends,
  onSend,
  onCancel,
  toolbar,
  disabledReason,
  takesImages,
}: {
  /** Whether the model this conversation answers with takes images. */
  takesImages: boolean;
  /** Said in the box while it is disabled. */
  disabledReason?: string;
  busy: boolean;
  disabled: boolean;
  enterSends: boolean;
  onSend: (text: string, attachments: Attachment[], images: ImageAttachment[]) => Promise<boolean>;
  onCancel: () => void;
  /** Shown under the message box (the model picker). */
  toolbar?: ReactNode;
}) {
  const [draft, setDraft] = useState('');
  const [files, setFiles] = useState<Attachment[]>([]);
  const [images, setImages] = useState<ImageAttachment[]>([]);
  const [refused, setRefused] = useState<string[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  async function attach(picked: readonly File[]) {
    if (picked.length === 0 || disabled) return;
    const result = await addAttachments({ files, images }, picked);
    setFiles(result.files);
    setImages(result.images);
    setRefused(result.refused);
  }
  function onDrop(event: DragEvent<HTMLFormElement>) {
    if (event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    void attach([...event.dataTransfer.files]);
  }
  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    // Pasted text stays text; only pasted files (a copied image among them) become attachments.
    if (event.clipboardData.files.length === 0) return;
    event.preventDefault();
    void attach([...event.clipboardData.files]);
  }

  const imagesBlocked = images.length > 0 && !takesImages;

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
    if (!text || busy || disabled || imagesBlocked) return;
    const sent = files;
    const sentImages = images;
    setDraft('');
    setFiles([]);
    setImages([]);
    setRefused([]);
    // A refused send gives the words, files and images back rather than losing them.
    if (!(await onSend(text, sent, sentImages))) {
      setDraft(text);
      setFiles(sent);
      setImages(sentImages);
    }
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
    <form
      className="composer"
      onSubmit={submit}
      onDragOver={(event) => event.preventDefault()}
      onDrop={onDrop}
    >
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
          onPaste={onPaste}
        />
        {/* Without the core a Stop could reach nothing: the disabled Send says so instead. */}
        {busy && !disabled ? (
          <button type="button" className="danger" onClick={onCancel} title="Escape">
            Stop <kbd>Esc</kbd>
          </button>
        ) : (
          <button
            type="submit"
            className="primary"
            disabled={disabled || !draft.trim() || imagesBlocked}
            title={imagesBlocked ? TEXT_ONLY_MODEL : undefined}
          >
            Send
          </button>
        )}
      </div>
      {/* Below the message row: the box and Send stay first in tab order. */}
      <div className="composer-files">
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Files to attach"
          onChange={(event) => {
            void attach([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <button
          type="button"
          disabled={disabled}
          title="Attach text files or images (PNG, JPEG, GIF, WebP)"
          onClick={() => picker.current?.click()}
        >
          Attach
        </button>
        {(files.length > 0 || images.length > 0 || refused.length > 0) && (
          <div className="composer-attachments">
            {images.length > 0 && (
              <ul aria-label="Attached images" className="composer-images">
                {images.map((image) => {
                  const src = imageDataUrl(image.mediaType, image.data);
                  return (
                    <li key={image.name} className="image-chip">
                      {src && <img src={src} alt={image.name} title={image.name} />}
                      <button
                        type="button"
                        aria-label={`Remove ${image.name}`}
                        onClick={() => setImages(images.filter((i) => i.name !== image.name))}
                      >
                        ×
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
            {imagesBlocked && (
              <p className="error-banner" role="alert" data-testid="images-refused">
                {TEXT_ONLY_MODEL}
              </p>
            )}
            {files.length > 0 && (
              <ul aria-label="Attached files">
                {files.map((file) => (
                  <li key={file.name} className="attachment-chip">
                    <span>{file.name}</span>
                    <button
                      type="button"
                      aria-label={`Remove ${file.name}`}
                      onClick={() => setFiles(files.filter((f) => f.name !== file.name))}
                    >
                      ×
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {refused.map((line) => (
              <p key={line} className="error-banner" role="alert">
                {line}
              </p>
            ))}
          </div>
        )}
      </div>
      {toolbar && <div className="composer-toolbar">{toolbar}</div>}
    </form>
  );
}
