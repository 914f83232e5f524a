/**
 * One message as the person in the chat saw it: text, reply buttons, a list behind its button,
 * an image, a document, a voice note, a location, a press; notes of the flow set apart. With
 * `onChoose`, buttons and list rows can be pressed (the test chat); without, they are shown as
 * what was offered (a transcript). Server text is only ever React text, never HTML.
 */
import type { ChatList, MessageView as Message } from './message-model.ts';
import './message-view.css';

/** A press of an offered option: which kind decides the field the web channel is sent. */
export interface Choice {
  kind: 'button' | 'list_row';
  id: string;
  title: string;
}

export interface MessageViewProps {
  message: Message;
  /** Makes buttons and list rows pressable; absent in a transcript. */
  onChoose?: (choice: Choice) => void;
  /** Who the person is called on this line ("Visitor", "You"); default "User". */
  userLabel?: string;
}

const SPEAKER = { bot: 'Bot', note: 'Flow note' } as const;

/**
 * Who a line is from: the person, the bot (also when someone had it write first), an agent (by
 * name), the flow, or an agent's note.
 */
function speakerOf(message: Message, userLabel: string): string {
  if (message.side === 'user') return userLabel;
  if (message.by === undefined) return SPEAKER[message.side];
  if (message.side === 'note') return `Internal note by ${message.by} (not sent)`;
  return message.writtenFirst ? `Bot, written first by ${message.by}` : `Agent ${message.by}`;
}

export function MessageView({ message, onChoose, userLabel = 'User' }: MessageViewProps) {
  const speaker = speakerOf(message, userLabel);
  const time = new Date(message.createdAt);
  const agentNote = message.side === 'note' && message.by !== undefined;
  return (
    <li
      className={`message message--${message.side}${agentNote ? ' message--internal' : ''}`}
      data-message-type={message.messageType}
    >
      <div className="message__meta">
        <span className="message__speaker">{speaker}</span>{' '}
        {Number.isNaN(time.getTime()) ? null : (
          <time dateTime={message.createdAt}>{time.toLocaleString()}</time>
        )}
      </div>
      <div className="message__bubble">
        {message.text ? <p className="message__text">{message.text}</p> : null}
        {message.choice ? (
          <p className="message__choice">
            <span aria-hidden="true">▸ </span>
            Chose “{message.choice.title ?? message.choice.id}”
          </p>
        ) : null}
        {message.image ? <ImagePart image={message.image} /> : null}
        {message.document ? <DocumentPart document={message.document} /> : null}
        {message.audio ? <AudioPart audio={message.audio} /> : null}
        {message.location ? (
          <p>
            <a
              href={`https://www.openstreetmap.org/?mlat=${message.location.latitude}&mlon=${message.location.longitude}`}
              target="_blank"
              rel="noopener noreferrer"
            >
              Location {message.location.latitude}, {message.location.longitude}
            </a>
          </p>
        ) : null}
        {message.buttons && message.buttons.length > 0 ? (
          <Buttons buttons={message.buttons} onChoose={onChoose} />
        ) : null}
        {message.list ? <ListPart list={message.list} onChoose={onChoose} /> : null}
      </div>
      {message.delivery ? (
        <p className={`message__delivery message__delivery--${message.delivery.status}`}>
          {message.delivery.status === 'pending'
            ? 'Sending…'
            : `Not delivered${message.delivery.error ? `: ${message.delivery.error}` : ''}`}
        </p>
      ) : null}
    </li>
  );
}

function Buttons({
  buttons,
  onChoose,
}: {
  buttons: { id: string; title: string }[];
  onChoose: MessageViewProps['onChoose'];
}) {
  if (!onChoose) {
    return (
      <ul className="message__options" aria-label="Buttons offered">
        {buttons.map((b) => (
          <li key={b.id} className="message__option">
            {b.title}
          </li>
        ))}
      </ul>
    );
  }
  return (
    <div className="message__options" role="group" aria-label="Reply buttons">
      {buttons.map((b) => (
        <button
          key={b.id}
          type="button"
          className="message__option"
          onClick={() => onChoose({ kind: 'button', id: b.id, title: b.title })}
        >
          {b.title}
        </button>
      ))}
    </div>
  );
}

function ListPart({ list, onChoose }: { list: ChatList; onChoose: MessageViewProps['onChoose'] }) {
  return (
    <details className="message__list">
      <summary>{list.button}</summary>
      {list.sections.map((section, i) => (
        <div
          key={section.title ?? i}
          role="group"
          aria-label={section.title ?? `Options ${i + 1}`}
          className="message__section"
        >
          {section.title ? <p className="message__section-title">{section.title}</p> : null}
          <ul>
            {section.rows.map((row) => (
              <li key={row.id}>
                {onChoose ? (
                  <button
                    type="button"
                    className="message__row"
                    onClick={() => onChoose({ kind: 'list_row', id: row.id, title: row.title })}
                  >
                    <span className="message__row-title">{row.title}</span>
                    {row.description ? (
                      <span className="message__row-description">{row.description}</span>
                    ) : null}
                  </button>
                ) : (
                  <span className="message__row">
                    <span className="message__row-title">{row.title}</span>
                    {row.description ? (
                      <span className="message__row-description">{row.description}</span>
                    ) : null}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </details>
  );
}

function ImagePart({ image }: { image: NonNullable<Message['image']> }) {
  return (
    <figure className="message__figure">
      {image.url ? (
        <img src={image.url} alt={image.caption ?? 'An image'} loading="lazy" />
      ) : (
        <p className="message__unavailable">
          An image the platform keeps (not viewable in the console)
        </p>
      )}
      {image.caption ? <figcaption>{image.caption}</figcaption> : null}
    </figure>
  );
}

function DocumentPart({ document }: { document: NonNullable<Message['document']> }) {
  const name = document.filename ?? 'Document';
  return (
    <div className="message__document">
      <span className="message__document-label">Document </span>
      {document.url ? (
        <a href={document.url} target="_blank" rel="noopener noreferrer">
          {name}
        </a>
      ) : (
        <span>{name} (kept by the platform)</span>
      )}
      {document.caption ? <p className="message__text">{document.caption}</p> : null}
    </div>
  );
}

function AudioPart({ audio }: { audio: NonNullable<Message['audio']> }) {
  return (
    <div className="message__audio">
      {audio.url ? (
        <audio controls src={audio.url} aria-label="Voice message" />
      ) : (
        <p className="message__unavailable">A voice message</p>
      )}
      {audio.transcript ? <p className="message__text">“{audio.transcript}”</p> : null}
    </div>
  );
}
