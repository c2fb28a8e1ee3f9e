//! The server binary driven by a real, synchronous Redis client library: what an
//! application written against Redis sees. The raw-socket tests in `server.rs` cover
//! what no well-behaved client sends (malformed frames, partial writes, slow readers).

mod common;

use std::time::Duration;

use common::ServerProcess;
use oneloop_testkit::watchdog_default;
use redis::{Connection, RedisResult, Value};

/// A connection from the client library, with a hang detector on its reads.
fn connect(server: &ServerProcess) -> Connection {
    let url = format!("redis://{}/", server.addr);
    let client = redis::Client::open(url).expect("a valid URL");
    let connection = client
        .get_connection_with_timeout(Duration::from_secs(8))
        .expect("the library connects (its CLIENT SETINFO errors are ignored)");
    connection
        .set_read_timeout(Some(Duration::from_secs(8)))
        .expect("set a read timeout");
    connection
}

#[test]
fn a_client_library_runs_the_key_commands_and_sees_redis_replies() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = connect(&server);
        let pong: String = redis::cmd("PING").query(&mut con).unwrap();
        assert_eq!(pong, "PONG");
        let ok: String = redis::cmd("SET").arg("k").arg("v").query(&mut con).unwrap();
        assert_eq!(ok, "OK");
        let got: Option<String> = redis::cmd("GET").arg("k").query(&mut con).unwrap();
        assert_eq!(got.as_deref(), Some("v"));
        let missing: Option<String> = redis::cmd("GET").arg("nope").query(&mut con).unwrap();
        assert_eq!(missing, None);
        // NX on an existing key writes nothing: a null reply.
        let refused: Value = redis::cmd("SET")
            .arg("k")
            .arg("w")
            .arg("NX")
            .query(&mut con)
            .unwrap();
        assert_eq!(refused, Value::Nil);
        let ok: String = redis::cmd("SET")
            .arg("t")
            .arg("x")
            .arg("EX")
            .arg(100)
            .query(&mut con)
            .unwrap();
        assert_eq!(ok, "OK");
        let ttl: i64 = redis::cmd("TTL").arg("t").query(&mut con).unwrap();
        assert!((1..=100).contains(&ttl), "TTL {ttl}");
        let n: i64 = redis::cmd("INCR").arg("n").query(&mut con).unwrap();
        assert_eq!(n, 1);
        let not_a_number: RedisResult<i64> = redis::cmd("INCR").arg("k").query(&mut con);
        let error = not_a_number.unwrap_err();
        assert!(
            error.to_string().contains("not an integer"),
            "the server's error reaches the library: {error}"
        );
        let existing: i64 = redis::cmd("EXISTS")
            .arg("k")
            .arg("n")
            .arg("nope")
            .query(&mut con)
            .unwrap();
        assert_eq!(existing, 2);
        let deleted: i64 = redis::cmd("DEL").arg("k").arg("t").query(&mut con).unwrap();
        assert_eq!(deleted, 2);
        drop(con);
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
    });
}

#[test]
fn a_client_library_pipeline_gets_every_reply_in_order() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = connect(&server);
        let mut pipe = redis::pipe();
        for i in 0..2000 {
            pipe.cmd("INCR").arg("counter");
            pipe.cmd("SET").arg(format!("key{i}")).arg(i).ignore();
        }
        let counts: Vec<i64> = pipe.query(&mut con).unwrap();
        assert_eq!(counts, (1..=2000).collect::<Vec<i64>>());
        let last: Option<i64> = redis::cmd("GET").arg("key1999").query(&mut con).unwrap();
        assert_eq!(last, Some(1999));
    });
}

#[test]
fn a_client_library_subscriber_receives_what_another_client_publishes() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut listener = connect(&server);
        let mut publisher = connect(&server);
        let mut pubsub = listener.as_pubsub();
        pubsub.subscribe("news").unwrap();
        pubsub
            .set_read_timeout(Some(Duration::from_secs(8)))
            .unwrap();
        // The subscription is in place once the reply to SUBSCRIBE was read.
        let receivers: i64 = redis::cmd("PUBLISH")
            .arg("news")
            .arg("hello")
            .query(&mut publisher)
            .unwrap();
        assert_eq!(receivers, 1);
        let message = pubsub.get_message().unwrap();
        assert_eq!(message.get_channel_name(), "news");
        assert_eq!(message.get_payload::<String>().unwrap(), "hello");
        pubsub.unsubscribe("news").unwrap();
        drop(pubsub);
        let none: i64 = redis::cmd("PUBLISH")
            .arg("news")
            .arg("again")
            .query(&mut publisher)
            .unwrap();
        assert_eq!(none, 0);
    });
}
