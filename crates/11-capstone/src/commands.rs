//! The commands: one request frame in, reply frames out to the client's outbox.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

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
}

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

/// The arguments of a request: an array of bulk strings, or `None` for anything
/// else.
fn arguments(frame: Frame) -> Option<Vec<Vec<u8>>> {
    let Frame::Array(Some(items)) = frame else {
        return None;
    };
    items
        .into_iter()
        .map(|item| match item {
            Frame::Bulk(Some(bytes)) => Some(bytes),
            _ => None,
        })
        .collect()
}

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
    let Some(args) = arguments(frame) else {
        client.outbox.push(&Frame::error(
            "ERR Protocol error: a request must be an array of bulk strings",
        ));
        return After::Malformed;
    };
    let Some((name, rest)) = args.split_first() else {
        // An empty array asks for nothing; Redis ignores it too.
        return After::Continue;
    };
    let name = String::from_utf8_lossy(name).to_ascii_uppercase();
    if !client.channels.is_empty()
        && !matches!(name.as_str(), "SUBSCRIBE" | "UNSUBSCRIBE" | "PING" | "QUIT")
    {
        client.outbox.push(&Frame::error(format!(
            "ERR Can't execute '{}': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context",
            name.to_ascii_lowercase()
        )));
        return After::Continue;
    }
    let reply = match (name.as_str(), rest) {
        ("PING", []) if !client.channels.is_empty() => pong(b""),
        ("PING", [message]) if !client.channels.is_empty() => pong(message),
        ("PING", []) => Frame::Simple("PONG".to_owned()),
        ("PING", [message]) | ("ECHO", [message]) => Frame::bulk(message.clone()),
        ("GET", [key]) => Frame::Bulk(store::get(&server.db, key)),
        ("SET", [key, value, options @ ..]) => set(server, key, value, options),
        ("DEL", keys) if !keys.is_empty() => count(keys, |key| store::del(&server.db, key)),
        ("EXISTS", keys) if !keys.is_empty() => count(keys, |key| store::exists(&server.db, key)),
        ("INCR", [key]) => incr(server, key, 1),
        ("DECR", [key]) => incr(server, key, -1),
        ("EXPIRE", [key, ttl]) => expire(server, key, ttl, Duration::from_secs),
        ("PEXPIRE", [key, ttl]) => expire(server, key, ttl, Duration::from_millis),
        ("TTL", [key]) => ttl(server, key, |left| (left.as_millis() as i64 + 500) / 1000),
        ("PTTL", [key]) => ttl(server, key, |left| left.as_millis() as i64),
        ("PUBLISH", [channel, message]) => {
            Frame::Integer(server.pubsub.publish(channel, message) as i64)
        }
        ("SUBSCRIBE", channels) if !channels.is_empty() => {
            for channel in channels {
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
            client.outbox.push(&Frame::ok());
            return After::Close;
        }
        ("COMMAND", []) | ("COMMAND", [_, ..]) => command(rest),
        (known, _) if COMMANDS.contains(&known) => wrong_arity(known),
        (_, rest) => unknown(&name, rest),
    };
    client.outbox.push(&reply);
    After::Continue
}
// ANCHOR_END: execute

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
fn set(server: &Server, key: &[u8], value: &[u8], options: &[Vec<u8>]) -> Frame {
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
                    return Frame::error("ERR syntax error");
                };
                let Some(amount) = integer(amount) else {
                    return Frame::error(NOT_AN_INTEGER);
                };
                if amount <= 0 {
                    return Frame::error("ERR invalid expire time in 'set' command");
                }
                let amount = amount as u64;
                ttl = Some(if option == "EX" {
                    Duration::from_secs(amount)
                } else {
                    Duration::from_millis(amount)
                });
            }
            _ => return Frame::error("ERR syntax error"),
        }
    }
    if store::set(&server.db, key, value.to_vec(), ttl, condition) {
        Frame::ok()
    } else {
        Frame::Bulk(None)
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
