//! The language server's stdio transport, with bounded messages.
//!
//! `lsp_server`'s own transport allocates whatever `Content-Length` a client announces
//! (`99999999999999` aborts the process on allocation, `18446744073709551615` panics on
//! capacity overflow). This one reads the same framing (`Content-Length: N`, a blank line,
//! N bytes of JSON) with limits:
//!
//! * A body over [`MAX_MESSAGE`] is not read into memory: its bytes are skipped as they
//!   arrive and the client gets a JSON-RPC error (`id: null`, as JSON-RPC answers a request
//!   whose id it could not read), and the server keeps running. When the announced length
//!   was true the stream is back in step after the skip; when it was a lie, the skip reads
//!   to the end of the stream, and the server ends as at any end of input.
//! * A body that is not JSON-RPC gets a parse error the same way, and the server goes on.
//! * A header that cannot be read (no `Content-Length`, not a number, a line over
//!   [`MAX_HEADER_LINE`] bytes) leaves no way to find where the next message starts: the
//!   server says so on stderr and ends with exit code 1.

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Message};
use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

/// The largest message body read: far above any document an editor sends (the linter
/// refuses files over 64 MiB too).
pub const MAX_MESSAGE: u64 = 64 << 20;
/// The longest header line (`Content-Length: …\r\n` is about 30 bytes).
pub const MAX_HEADER_LINE: u64 = 4096;

/// The transport's threads: the writer, joined so every answer is flushed, and why the
/// reader stopped, when the stream was broken.
pub struct Io {
    writer: JoinHandle<()>,
    broken: Receiver<String>,
}

impl Io {
    /// Waits for the writer to flush what the server sent; returns the reader's complaint
    /// when the input could not be read to its end. The reader itself is not joined: after
    /// `exit` it has stopped, and otherwise it may be blocked on a client that never closes
    /// its end.
    pub fn finish(self) -> Option<String> {
        let _ = self.writer.join();
        self.broken.try_recv().ok()
    }
}

/// A connection over stdin and stdout.
pub fn stdio() -> (Connection, Io) {
    let (to_writer, outgoing) = crossbeam_channel::unbounded::<Message>();
    let (incoming, from_reader) = crossbeam_channel::bounded::<Message>(0);
    let (broken_tx, broken) = crossbeam_channel::bounded::<String>(1);
    let writer = std::thread::spawn(move || {
        for msg in outgoing {
            // Locked per message: the reader writes its error replies between them.
            let out = io::stdout();
            if msg.write(&mut out.lock()).is_err() {
                return;
            }
        }
    });
    std::thread::spawn(move || {
        let stdin = io::stdin();
        if let Err(e) = read_loop(&mut stdin.lock(), &incoming, &mut Stdout) {
            let _ = broken_tx.send(e);
        }
    });
    let conn = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    (conn, Io { writer, broken })
}

/// Where the reader writes its error replies (stdout, locked per reply).
struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let out = io::stdout();
        let mut out = out.lock();
        out.write_all(buf)?;
        out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush()
    }
}

/// One message read off the stream.
#[derive(Debug)]
enum Frame {
    Message(Message),
    /// A body of this many bytes, over [`MAX_MESSAGE`]: skipped.
    TooLarge(u64),
    /// A body of the announced length that is not a JSON-RPC message.
    Unparsable(String),
}

/// Reads messages until the input ends (`Ok`) or its framing breaks (`Err`, the reason);
/// passes them on, and answers the ones it cannot pass on through `replies`.
fn read_loop(
    input: &mut impl BufRead,
    incoming: &Sender<Message>,
    replies: &mut impl Write,
) -> Result<(), String> {
    loop {
        let frame = match read_frame(input)? {
            Some(f) => f,
            None => return Ok(()),
        };
        match frame {
            Frame::Message(msg) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                if incoming.send(msg).is_err() || exit {
                    return Ok(());
                }
            }
            Frame::TooLarge(len) => {
                let text = format!(
                    "a message of {len} bytes is larger than the {} MiB limit; skipped",
                    MAX_MESSAGE >> 20
                );
                if reply_error(replies, -32600, &text).is_err() {
                    return Ok(());
                }
            }
            Frame::Unparsable(why) => {
                let text = format!("not a JSON-RPC message: {why}");
                if reply_error(replies, -32700, &text).is_err() {
                    return Ok(());
                }
            }
        }
    }
}

/// A JSON-RPC error with a null id: the request's id was never read.
fn reply_error(out: &mut impl Write, code: i32, message: &str) -> io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    })
    .to_string();
    out.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
}

/// Reads one frame; `Ok(None)` at the end of the input (also in the middle of a skipped
/// body: nothing more can come).
fn read_frame(input: &mut impl BufRead) -> Result<Option<Frame>, String> {
    let mut length: Option<u64> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read the input: {e}"))?;
        if n == 0 {
            return Ok(None);
        }
        let Some(text) = line.strip_suffix(b"\r\n") else {
            return Err(format!(
                "malformed header \"{}\"",
                crate::escape::bytes(&line[..line.len().min(80)])
            ));
        };
        if text.is_empty() {
            break;
        }
        let header = String::from_utf8_lossy(text);
        let Some((name, value)) = header.split_once(": ") else {
            return Err(format!(
                "malformed header \"{}\"",
                crate::escape::bytes(text)
            ));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            length = Some(value.trim().parse::<u64>().map_err(|_| {
                format!(
                    "Content-Length \"{}\" is not a length",
                    crate::escape::text(value)
                )
            })?);
        }
    }
    let length = length.ok_or("a message without Content-Length")?;
    if length > MAX_MESSAGE {
        // Skipped as it arrives, in the reader's buffer: nothing of it is kept.
        let skipped = io::copy(&mut input.by_ref().take(length), &mut io::sink())
            .map_err(|e| format!("cannot read the input: {e}"))?;
        if skipped < length {
            return Ok(None);
        }
        return Ok(Some(Frame::TooLarge(length)));
    }
    let mut body = Vec::with_capacity(length as usize);
    input
        .by_ref()
        .take(length)
        .read_to_end(&mut body)
        .map_err(|e| format!("cannot read the input: {e}"))?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    Ok(Some(match serde_json::from_slice::<Message>(&body) {
        Ok(m) => Frame::Message(m),
        Err(e) => Frame::Unparsable(e.to_string()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Runs the reader over `input`; returns what it passed on, what it replied, and how
    /// it ended.
    fn read_all(input: &[u8]) -> (Vec<Message>, String, Result<(), String>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut replies = Vec::new();
        let end = read_loop(&mut io::Cursor::new(input), &tx, &mut replies);
        drop(tx);
        (
            rx.into_iter().collect(),
            String::from_utf8_lossy(&replies).into_owned(),
            end,
        )
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[test]
    fn an_oversized_message_is_skipped_and_answered() {
        let big = "x".repeat((MAX_MESSAGE + 1) as usize);
        let input = format!("Content-Length: {}\r\n\r\n{big}{}", big.len(), framed(PING));
        let (got, replies, end) = read_all(input.as_bytes());
        assert_eq!(end, Ok(()));
        assert_eq!(got.len(), 1, "the next message is read: {got:?}");
        assert!(
            replies.contains(r#""id":null"#) && replies.contains("larger than the 64 MiB limit"),
            "{replies}"
        );
    }

    #[test]
    fn a_length_past_the_input_ends_the_stream_quietly() {
        for len in ["99999999999999", "18446744073709551615"] {
            let input = format!("Content-Length: {len}\r\n\r\n{PING}");
            let (got, _, end) = read_all(input.as_bytes());
            assert!(got.is_empty());
            assert_eq!(end, Ok(()));
        }
    }

    #[test]
    fn broken_framing_is_an_error_and_bad_json_an_answer() {
        let (_, _, end) = read_all(b"Content-Length: 184467440737095516150\r\n\r\n");
        assert!(end.unwrap_err().contains("is not a length"));
        let long = format!("X-Pad: {}\r\n", "a".repeat(10_000));
        let (_, _, end) = read_all(long.as_bytes());
        assert!(end.unwrap_err().starts_with("malformed header"));
        let input = format!("{}{}", framed("{not json"), framed(PING));
        let (got, replies, end) = read_all(input.as_bytes());
        assert_eq!((got.len(), end), (1, Ok(())));
        assert!(replies.contains("-32700"), "{replies}");
    }
}
