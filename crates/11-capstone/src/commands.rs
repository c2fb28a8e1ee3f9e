//! The commands: one request frame in, reply frames out to the client's outbox.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use crate::frame::encode_bulk;
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

/// Moves the arguments of a request into `args`: `false` unless the request is an
/// array of bulk strings. The bulk strings keep the buffers the parser made: nothing
/// is copied.
fn arguments(frame: Frame, args: &mut Vec<Vec<u8>>) -> bool {
    let Frame::Array(Some(items)) = frame else {
        return false;
    };
    for item in items {
        match item {
            Frame::Bulk(Some(bytes)) => args.push(bytes),
            _ => return false,
        }
    }
    true
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

fn integer(arg: &[u8]) -> Option<i64> {
    std::str::from_utf8(arg).ok()?.parse().ok()
}

// ANCHOR: execute
/// Runs one request for `client`, pushing its replies to the client's outbox.
pub fn execute(server: &Server, client: &mut Client, frame: Frame) -> After {
    let mut args = std::mem::take(&mut client.args);
    let after = if arguments(frame, &mut args) {
        run(server, client, &mut args)
    } else {
        client.outbox.push(&Frame::error(
            "ERR Protocol error: a request must be an array of bulk strings",
        ));
        After::Malformed
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
    let Some(name) = upper_name(name, &mut buffer) else {
        let name = String::from_utf8_lossy(name).to_ascii_uppercase();
        let reply = if client.channels.is_empty() {
            unknown(&name, rest)
        } else {
            not_subscribed(&name)
        };
        client.outbox.push(&reply);
        return After::Continue;
    };
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
        ("EXPIRE", [key, ttl]) => expire(server, key, ttl, Duration::from_secs).into(),
        ("PEXPIRE", [key, ttl]) => expire(server, key, ttl, Duration::from_millis).into(),
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
        ("QUIT", []) => {
            client.outbox.push_bytes(OK);
            return After::Close;
        }
        ("COMMAND", all) => command(all).into(),
        (known, _) if COMMANDS.contains(&known) => wrong_arity(known).into(),
        (_, rest) => unknown(name, rest).into(),
    };
    match reply {
        Reply::Frame(frame) => client.outbox.push(&frame),
        Reply::Fixed(bytes) => client.outbox.push_bytes(bytes),
    };
    After::Continue
}
// ANCHOR_END: execute

fn not_subscribed(name: &str) -> Frame {
    Frame::error(format!(
        "ERR Can't execute '{}': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context",
        name.to_ascii_lowercase()
    ))
}

fn pong(message: &[u8]) -> Frame {
    Frame::Array(Some(vec![Frame::bulk("pong"), Frame::bulk(message)]))
}

fn unknown(name: &str, rest: &[Vec<u8>]) -> Frame {
    let shown: String = rest
        .iter()
        .take(8)
        .map(|arg| format!("'{}' ", String::from_utf8_lossy(arg)))
        .collect();
    Frame::error(format!(
        "ERR unknown command '{}', with args beginning with: {shown}",
        name.to_ascii_lowercase()
    ))
}

fn count(keys: &[Vec<u8>], mut hit: impl FnMut(&[u8]) -> bool) -> Frame {
    Frame::Integer(keys.iter().filter(|key| hit(key)).count() as i64)
}

// ANCHOR: set_options
/// `SET key value [NX | XX] [EX seconds | PX milliseconds]`.
fn set(server: &Server, key: Vec<u8>, value: Vec<u8>, options: &[Vec<u8>]) -> Reply {
    let mut condition = Condition::Always;
    let mut ttl = None;
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let option = String::from_utf8_lossy(option).to_ascii_uppercase();
        match option.as_str() {
            "NX" if condition == Condition::Always => condition = Condition::IfMissing,
            "XX" if condition == Condition::Always => condition = Condition::IfExists,
            "EX" | "PX" if ttl.is_none() => {
                let Some(amount) = options.next() else {
                    return Frame::error("ERR syntax error").into();
                };
                let Some(amount) = integer(amount) else {
                    return Frame::error(NOT_AN_INTEGER).into();
                };
                if amount <= 0 {
                    return Frame::error("ERR invalid expire time in 'set' command").into();
                }
                let amount = amount as u64;
                ttl = Some(if option == "EX" {
                    Duration::from_secs(amount)
                } else {
                    Duration::from_millis(amount)
                });
            }
            _ => return Frame::error("ERR syntax error").into(),
        }
    }
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

fn expire(server: &Server, key: &[u8], ttl: &[u8], unit: fn(u64) -> Duration) -> Frame {
    let Some(amount) = integer(ttl) else {
        return Frame::error(NOT_AN_INTEGER);
    };
    // A deadline already past deletes the key, as in Redis.
    let ttl = unit(amount.max(0) as u64);
    Frame::Integer(i64::from(store::expire(&server.db, key, ttl)))
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
fn command(rest: &[Vec<u8>]) -> Frame {
    match rest
        .first()
        .map(|sub| String::from_utf8_lossy(sub).to_ascii_uppercase())
    {
        Some(sub) if sub == "COUNT" => Frame::Integer(COMMANDS.len() as i64),
        // No documentation to give: an empty reply, which redis-cli takes as "no hints".
        _ => Frame::Array(Some(Vec::new())),
    }
}
