//! The commands: one request frame in, reply frames out to the client's outbox.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use crate::frame::{encode_bulk, error_line};
use crate::limits::decimal;
use crate::store::{self, Condition, Ttl};
use crate::{Frame, Outbox, Server};

/// What the connection does after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Read the next request.
    Continue,
    /// Send what is buffered, then close (`QUIT`).
    Close,
    /// The request was a frame but not a command: send the error, then close.
    Malformed,
}

/// One client's state: its id, its outbox, its channels.
#[derive(Debug)]
pub struct Client {
    /// The id the server gave the connection.
    pub id: u64,
    /// Where its replies go.
    pub outbox: Rc<Outbox>,
    /// The channels it is subscribed to; while there are any, it is in subscribed
    /// mode and only a few commands are allowed.
    pub channels: BTreeSet<Vec<u8>>,
    /// The list the arguments of a request are moved into: kept from one request to
    /// the next, so taking a request apart allocates nothing.
    args: Vec<Vec<u8>>,
}

impl Client {
    /// A client with no channels, whose replies go to `outbox`.
    pub fn new(id: u64, outbox: Rc<Outbox>) -> Client {
        Client {
            id,
            outbox,
            channels: BTreeSet::new(),
            args: Vec::new(),
        }
    }
}

/// The most arguments whose list a client keeps between requests.
const ARGS_KEPT: usize = 16;

/// The commands this server knows, for `COMMAND COUNT`.
pub const COMMANDS: &[&str] = &[
    "PING",
    "ECHO",
    "GET",
    "SET",
    "DEL",
    "EXISTS",
    "INCR",
    "DECR",
    "EXPIRE",
    "PEXPIRE",
    "TTL",
    "PTTL",
    "PUBLISH",
    "SUBSCRIBE",
    "UNSUBSCRIBE",
    "QUIT",
    "COMMAND",
];

const NOT_AN_INTEGER: &str = "ERR value is not an integer or out of range";

/// Moves the arguments of a request into `args`. The bulk strings keep the buffers
/// the parser made: nothing is copied. A null array (`*-1`) is a request with no
/// arguments, as Redis reads it. Anything but an array of bulk strings is refused
/// with Redis's words for what is wrong.
fn arguments(frame: Frame, args: &mut Vec<Vec<u8>>) -> Result<(), String> {
    let items = match frame {
        Frame::Array(Some(items)) => items,
        Frame::Array(None) => return Ok(()),
        _ => return Err("a request must be an array of bulk strings".to_owned()),
    };
    for item in items {
        let kind = match item {
            Frame::Bulk(Some(bytes)) => {
                args.push(bytes);
                continue;
            }
            Frame::Bulk(None) => return Err("invalid bulk length".to_owned()),
            Frame::Simple(_) => '+',
            Frame::Error(_) => '-',
            Frame::Integer(_) => ':',
            Frame::Array(_) => '*',
        };
        return Err(format!("expected '$', got '{kind}'"));
    }
    Ok(())
}

/// How many words (its name included) a command takes, as Redis counts them: `n`
/// for exactly `n`, `-n` for at least `n`. `None` for a name this server does not
/// know.
fn arity(name: &str) -> Option<i32> {
    Some(match name {
        "GET" | "ECHO" | "INCR" | "DECR" | "TTL" | "PTTL" => 2,
        "PUBLISH" => 3,
        "SET" | "EXPIRE" | "PEXPIRE" => -3,
        "DEL" | "EXISTS" | "SUBSCRIBE" => -2,
        "PING" | "UNSUBSCRIBE" | "QUIT" | "COMMAND" => -1,
        _ => return None,
    })
}

/// The longest command name this server knows, in bytes (`UNSUBSCRIBE`).
const LONGEST_NAME: usize = 11;

/// A command's name in capitals, written into `buffer`: no allocation for a request.
/// A name too long to be one of [`COMMANDS`] is only needed for the error message,
/// and is made then.
fn upper_name<'b>(name: &[u8], buffer: &'b mut [u8; LONGEST_NAME]) -> Option<&'b str> {
    let buffer = buffer.get_mut(..name.len())?;
    buffer.copy_from_slice(name);
    buffer.make_ascii_uppercase();
    std::str::from_utf8(buffer).ok()
}

/// A reply: a frame, or bytes that never change (`+OK`), queued with no encoding.
enum Reply {
    Frame(Frame),
    Fixed(&'static [u8]),
    /// An error whose message quotes the client's bytes as they came.
    Error(Vec<u8>),
}

/// The message `parts` make together, as bytes.
fn error_of(parts: &[&[u8]]) -> Reply {
    Reply::Error(parts.concat())
}

impl From<Frame> for Reply {
    fn from(frame: Frame) -> Reply {
        Reply::Frame(frame)
    }
}

/// `+OK`, already encoded.
const OK: &[u8] = b"+OK\r\n";
/// The null bulk string, already encoded.
const NULL: &[u8] = b"$-1\r\n";

fn wrong_arity(name: &str) -> Frame {
    Frame::error(format!(
        "ERR wrong number of arguments for '{}' command",
        name.to_ascii_lowercase()
    ))
}

/// The longest time to live in milliseconds that `amount` units of `scale`
/// milliseconds stand for, or `None` when Redis could not hold the deadline. Redis
/// keeps a deadline as a Unix time in milliseconds, in an `i64`: the time to live
/// plus the time now must fit in one. (The server's own deadlines are on the loop's
/// clock; only this check reads the wall clock.)
fn time_to_live_ms(amount: i64, scale: i64) -> Option<i64> {
    let ms = amount.checked_mul(scale)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64);
    ms.checked_add(now).map(|_| ms)
}

// ANCHOR: execute
/// Runs one request for `client`, pushing its replies to the client's outbox.
pub fn execute(server: &Server, client: &mut Client, frame: Frame) -> After {
    let mut args = std::mem::take(&mut client.args);
    let after = match arguments(frame, &mut args) {
        Ok(()) => run(server, client, &mut args),
        Err(what) => {
            client
                .outbox
                .push(&Frame::error(format!("ERR Protocol error: {what}")));
            After::Malformed
        }
    };
    args.clear();
    if args.capacity() <= ARGS_KEPT {
        client.args = args;
    }
    after
}

/// Runs the command whose name and arguments are `args`.
fn run(server: &Server, client: &mut Client, args: &mut [Vec<u8>]) -> After {
    let Some((name, rest)) = args.split_first_mut() else {
        // An empty array asks for nothing; Redis ignores it too.
        return After::Continue;
    };
    let mut buffer = [0; LONGEST_NAME];
    // As in Redis: an unknown name first, then the number of arguments, then what
    // subscribed mode allows.
    let Some((name, arity)) = upper_name(name, &mut buffer).and_then(|n| Some((n, arity(n)?)))
    else {
        push(client, unknown(name, rest));
        return After::Continue;
    };
    let words = rest.len() as i32 + 1;
    if (arity >= 0 && words != arity) || words < -arity {
        client.outbox.push(&wrong_arity(name));
        return After::Continue;
    }
    if !client.channels.is_empty() && !matches!(name, "SUBSCRIBE" | "UNSUBSCRIBE" | "PING" | "QUIT")
    {
        client.outbox.push(&not_subscribed(name));
        return After::Continue;
    }
    let reply: Reply = match (name, rest) {
        ("PING", []) if !client.channels.is_empty() => pong(b"").into(),
        ("PING", [message]) if !client.channels.is_empty() => pong(message).into(),
        ("PING", []) => Reply::Fixed(b"+PONG\r\n"),
        ("PING", [message]) | ("ECHO", [message]) => Frame::bulk(std::mem::take(message)).into(),
        ("GET", [key]) => {
            // Encoded straight from the store: the value is not copied out first.
            client.outbox.push_with(|out| {
                store::read(&server.db, key, |value| encode_bulk(value, out));
            });
            return After::Continue;
        }
        ("SET", [key, value, options @ ..]) => {
            set(server, std::mem::take(key), std::mem::take(value), options)
        }
        ("DEL", keys) if !keys.is_empty() => count(keys, |key| store::del(&server.db, key)).into(),
        ("EXISTS", keys) if !keys.is_empty() => {
            count(keys, |key| store::exists(&server.db, key)).into()
        }
        ("INCR", [key]) => incr(server, key, 1).into(),
        ("DECR", [key]) => incr(server, key, -1).into(),
        ("EXPIRE", [key, ttl, options @ ..]) => expire(server, "expire", key, ttl, 1000, options),
        ("PEXPIRE", [key, ttl, options @ ..]) => expire(server, "pexpire", key, ttl, 1, options),
        ("TTL", [key]) => ttl(server, key, |left| (left.as_millis() as i64 + 500) / 1000).into(),
        ("PTTL", [key]) => ttl(server, key, |left| left.as_millis() as i64).into(),
        ("PUBLISH", [channel, message]) => {
            Frame::Integer(server.pubsub.publish(channel, message) as i64).into()
        }
        ("SUBSCRIBE", channels) if !channels.is_empty() => {
            for channel in channels.iter() {
                server.pubsub.subscribe(channel, client.id, &client.outbox);
                client.channels.insert(channel.clone());
                client
                    .outbox
                    .push(&subscription(b"subscribe", Some(channel), client));
            }
            return After::Continue;
        }
        ("UNSUBSCRIBE", channels) => {
            unsubscribe(server, client, channels);
            return After::Continue;
        }
        // Redis takes QUIT with any arguments, and ignores them.
        ("QUIT", _) => {
            client.outbox.push_reply(OK);
            return After::Close;
        }
        ("COMMAND", all) => command(all),
        // Within the arity, but past what the command takes (`PING a b`).
        (known, _) => wrong_arity(known).into(),
    };
    push(client, reply);
    After::Continue
}
// ANCHOR_END: execute

/// Queues `reply` for `client`.
fn push(client: &Client, reply: Reply) {
    match reply {
        Reply::Frame(frame) => client.outbox.push(&frame),
        Reply::Fixed(bytes) => client.outbox.push_reply(bytes),
        Reply::Error(message) => client.outbox.push_with(|out| error_line(out, &message)),
    };
}

fn not_subscribed(name: &str) -> Frame {
    Frame::error(format!(
        "ERR Can't execute '{}': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context",
        name.to_ascii_lowercase()
    ))
}

fn pong(message: &[u8]) -> Frame {
    Frame::Array(Some(vec![Frame::bulk("pong"), Frame::bulk(message)]))
}

/// How many bytes of an unknown command's name, and of its arguments together, the
/// error shows (as Redis shows them).
const SHOWN: usize = 128;

/// The error for an unknown command: its name as the client wrote it, and its
/// arguments, each quoted, until they fill [`SHOWN`] bytes.
fn unknown(name: &[u8], rest: &[Vec<u8>]) -> Reply {
    let mut shown = Vec::new();
    for arg in rest {
        if shown.len() >= SHOWN {
            break;
        }
        let room = SHOWN - shown.len();
        shown.push(b'\'');
        shown.extend_from_slice(&arg[..arg.len().min(room)]);
        shown.extend_from_slice(b"' ");
    }
    error_of(&[
        b"ERR unknown command '",
        &name[..name.len().min(SHOWN)],
        b"', with args beginning with: ",
        &shown,
    ])
}

fn count(keys: &[Vec<u8>], mut hit: impl FnMut(&[u8]) -> bool) -> Frame {
    Frame::Integer(keys.iter().filter(|key| hit(key)).count() as i64)
}

// ANCHOR: set_options
/// `SET key value [NX | XX] [EX seconds | PX milliseconds]`.
///
/// As in Redis, a flag may be given twice (and the last time given wins), and every
/// option is read before the time is checked.
fn set(server: &Server, key: Vec<u8>, value: Vec<u8>, options: &[Vec<u8>]) -> Reply {
    let mut condition = Condition::Always;
    // The time as given, and how many milliseconds one of its units is.
    let mut time: Option<(&[u8], i64)> = None;
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let option = String::from_utf8_lossy(option).to_ascii_uppercase();
        let scale = match option.as_str() {
            "NX" if condition != Condition::IfExists => {
                condition = Condition::IfMissing;
                continue;
            }
            "XX" if condition != Condition::IfMissing => {
                condition = Condition::IfExists;
                continue;
            }
            "EX" => 1000,
            "PX" => 1,
            _ => return Frame::error("ERR syntax error").into(),
        };
        match (time, options.next()) {
            (Some((_, earlier)), _) if earlier != scale => {
                return Frame::error("ERR syntax error").into();
            }
            (_, Some(amount)) => time = Some((amount, scale)),
            (_, None) => return Frame::error("ERR syntax error").into(),
        }
    }
    let ttl = match time {
        None => None,
        Some((amount, scale)) => {
            let Some(amount) = decimal(amount) else {
                return Frame::error(NOT_AN_INTEGER).into();
            };
            match time_to_live_ms(amount, scale) {
                Some(ms) if amount > 0 => Some(Duration::from_millis(ms as u64)),
                _ => return Frame::error("ERR invalid expire time in 'set' command").into(),
            }
        }
    };
    if store::set(&server.db, key, value, ttl, condition) {
        Reply::Fixed(OK)
    } else {
        Reply::Fixed(NULL)
    }
}
// ANCHOR_END: set_options

fn incr(server: &Server, key: &[u8], delta: i64) -> Frame {
    match store::incr_by(&server.db, key, delta) {
        Ok(n) => Frame::Integer(n),
        Err(message) => Frame::error(message),
    }
}

/// `EXPIRE` (`scale` 1000) and `PEXPIRE` (`scale` 1): `key amount [NX | XX | GT | LT]`.
///
/// The conditions are Redis's: `NX` only if the key has no deadline, `XX` only if it
/// has one, `GT` only if the new deadline is later, `LT` only if it is earlier (no
/// deadline counts as the latest of all).
fn expire(
    server: &Server,
    name: &str,
    key: &[u8],
    amount: &[u8],
    scale: i64,
    options: &[Vec<u8>],
) -> Reply {
    let (mut nx, mut xx, mut gt, mut lt) = (false, false, false, false);
    for option in options {
        match String::from_utf8_lossy(option)
            .to_ascii_uppercase()
            .as_str()
        {
            "NX" => nx = true,
            "XX" => xx = true,
            "GT" => gt = true,
            "LT" => lt = true,
            _ => return error_of(&[b"ERR Unsupported option ", option]),
        }
    }
    if nx && (xx || gt || lt) {
        return Frame::error("ERR NX and XX, GT or LT options at the same time are not compatible")
            .into();
    }
    if gt && lt {
        return Frame::error("ERR GT and LT options at the same time are not compatible").into();
    }
    let Some(amount) = decimal(amount) else {
        return Frame::error(NOT_AN_INTEGER).into();
    };
    let Some(ms) = time_to_live_ms(amount, scale) else {
        return Frame::error(format!("ERR invalid expire time in '{name}' command")).into();
    };
    if !options.is_empty() {
        // The deadline the key has now, as whole milliseconds left (`None`: it has
        // none). Both deadlines are compared in whole milliseconds, as Redis keeps
        // them: in the millisecond a key was given 100, `GT 100` is not later.
        let left = match store::ttl(&server.db, key) {
            Ttl::Missing => return Frame::Integer(0).into(),
            Ttl::Forever => None,
            Ttl::Left(left) => Some(left.as_millis()),
        };
        let new = i128::from(ms);
        let refused = (nx && left.is_some())
            || (xx && left.is_none())
            || (gt && left.is_none_or(|left| new <= left as i128))
            || (lt && left.is_some_and(|left| new >= left as i128));
        if refused {
            return Frame::Integer(0).into();
        }
    }
    // A deadline already past deletes the key, as in Redis.
    let ttl = Duration::from_millis(ms.max(0) as u64);
    Frame::Integer(i64::from(store::expire(&server.db, key, ttl))).into()
}

fn ttl(server: &Server, key: &[u8], unit: fn(Duration) -> i64) -> Frame {
    Frame::Integer(match store::ttl(&server.db, key) {
        Ttl::Missing => -2,
        Ttl::Forever => -1,
        Ttl::Left(left) => unit(left),
    })
}

/// `[kind, channel, count]`: the reply to each channel of (UN)SUBSCRIBE.
fn subscription(kind: &[u8], channel: Option<&[u8]>, client: &Client) -> Frame {
    Frame::Array(Some(vec![
        Frame::bulk(kind),
        Frame::Bulk(channel.map(<[u8]>::to_vec)),
        Frame::Integer(client.channels.len() as i64),
    ]))
}

fn unsubscribe(server: &Server, client: &mut Client, channels: &[Vec<u8>]) {
    let channels: Vec<Vec<u8>> = if channels.is_empty() {
        client.channels.iter().cloned().collect()
    } else {
        channels.to_vec()
    };
    if channels.is_empty() {
        client
            .outbox
            .push(&subscription(b"unsubscribe", None, client));
    }
    for channel in channels {
        server.pubsub.unsubscribe(&channel, client.id);
        client.channels.remove(&channel);
        client
            .outbox
            .push(&subscription(b"unsubscribe", Some(&channel), client));
    }
}

/// `COMMAND`, `COMMAND COUNT`, `COMMAND DOCS`: enough for `redis-cli` to start.
fn command(rest: &[Vec<u8>]) -> Reply {
    let Some(sub) = rest.first() else {
        return Frame::Array(Some(Vec::new())).into();
    };
    match String::from_utf8_lossy(sub).to_ascii_uppercase().as_str() {
        "COUNT" if rest.len() == 1 => Frame::Integer(COMMANDS.len() as i64).into(),
        "COUNT" => wrong_arity("command|count").into(),
        // No documentation to give: an empty reply, which redis-cli takes as "no hints".
        "DOCS" | "INFO" | "LIST" => Frame::Array(Some(Vec::new())).into(),
        _ => error_of(&[
            b"ERR unknown subcommand '",
            &sub[..sub.len().min(SHOWN)],
            b"'. Try COMMAND HELP.",
        ]),
    }
}
