//! Exercise 3: the output bound. A client whose replies and messages would pass it is
//! disconnected; the bytes already queued for it are dropped.

use std::rc::Rc;

use crate::common::{pair, read_to_end};
use ex11_capstone::{Closed, Outbox, PubSub};
use oneloop::{run, spawn, to_thread, yield_now};
use oneloop_testkit::watchdog_default;

const MIB: usize = 1024 * 1024;

#[test]
fn ex3_a_push_up_to_the_bound_is_queued_and_one_byte_past_it_disconnects() {
    watchdog_default(|| {
        run(async {
            let (stream, _client) = pair().await;
            // No writer task: what is pushed stays in the buffer.
            let outbox = Outbox::new(stream, 10);
            assert!(outbox.push_bytes(b"abcdef"));
            assert_eq!(outbox.pending(), 6);
            // Exactly at the bound is allowed.
            assert!(outbox.push_bytes(b"ghij"));
            assert_eq!(outbox.pending(), 10);
            assert_eq!(outbox.closed(), None);
            // One byte past it is not, and the client is disconnected.
            assert!(!outbox.push_bytes(b"k"), "a push past the bound was queued");
            assert_eq!(outbox.closed(), Some(Closed::Overflow));
            // What waited for it is dropped: a slow client holds no memory.
            assert_eq!(
                outbox.pending(),
                0,
                "the buffer of a disconnected client is kept"
            );
            // Once disconnected, nothing more is queued, however small.
            assert!(!outbox.push_bytes(b"l"));
            assert_eq!(outbox.pending(), 0);
        })
        .unwrap();
    });
}

/// The wrong mechanism "look at the bound first": an output already closed takes
/// nothing, and a push past the bound then must not disconnect it again. A client
/// whose output was closed to flush its last replies still gets them.
#[test]
fn ex3_a_closed_output_refuses_a_push_past_the_bound_and_keeps_what_it_flushes() {
    watchdog_default(|| {
        let got = run(async {
            let (stream, mut client) = pair().await;
            let outbox = Outbox::new(stream, 8);
            assert!(outbox.push_bytes(b"+OK\r\n"));
            outbox.close();
            assert_eq!(outbox.closed(), Some(Closed::Flush));
            assert!(!outbox.push_bytes(b"far past the bound"));
            assert_eq!(
                outbox.closed(),
                Some(Closed::Flush),
                "a closed output was disconnected again"
            );
            assert_eq!(outbox.pending(), 5, "the reply to flush was dropped");
            spawn(Rc::clone(&outbox).write_loop());
            to_thread(move || read_to_end(&mut client)).await.unwrap()
        })
        .unwrap();
        assert_eq!(got, b"+OK\r\n");
    });
}

#[test]
fn ex3_an_overflow_shuts_the_socket_so_the_client_sees_the_end() {
    watchdog_default(|| {
        let got = run(async {
            let (stream, mut client) = pair().await;
            let outbox = Outbox::new(stream, 4);
            assert!(!outbox.push_bytes(b"too long"));
            // The client reads end of file: it knows it was dropped.
            to_thread(move || read_to_end(&mut client)).await.unwrap()
        })
        .unwrap();
        assert_eq!(
            got, b"",
            "nothing was queued, so nothing arrives before the end"
        );
    });
}

#[test]
fn ex3_the_bound_counts_the_chunk_the_writer_has_in_flight() {
    watchdog_default(|| {
        run(async {
            let (stream, client) = pair().await;
            let outbox = Outbox::new(stream, 40 * MIB);
            let writer = spawn(Rc::clone(&outbox).write_loop());
            // 32 MiB is more than loopback's buffers hold while the client reads nothing.
            assert!(outbox.push_bytes(&vec![b'x'; 32 * MIB]));
            // The writer's step runs and takes the whole buffer as its chunk.
            for _ in 0..3 {
                yield_now().await;
            }
            assert_eq!(
                outbox.pending(),
                32 * MIB,
                "the chunk in flight is still pending"
            );
            // 32 + 10 MiB not yet written passes the 40 MiB bound.
            assert!(
                !outbox.push_bytes(&vec![b'y'; 10 * MIB]),
                "the bound ignored the bytes the writer had taken"
            );
            assert_eq!(outbox.closed(), Some(Closed::Overflow));
            // The socket is shut both ways: the writer's write fails and it ends.
            writer.await.unwrap();
            drop(client);
        })
        .unwrap();
    });
}

#[test]
fn ex3_a_publish_reaches_subscribers_within_their_bound_and_drops_the_one_past_it() {
    watchdog_default(|| {
        run(async {
            let (roomy_stream, _roomy_client) = pair().await;
            let (slow_stream, _slow_client) = pair().await;
            let roomy = Outbox::new(roomy_stream, 1000);
            // Room for one message (54 bytes on the wire), not two.
            let slow = Outbox::new(slow_stream, 60);
            let pubsub = PubSub::default();
            pubsub.subscribe(b"news", 1, &roomy);
            pubsub.subscribe(b"news", 2, &slow);
            let message = b"twenty bytes of news";
            assert_eq!(pubsub.publish(b"news", message), 2);
            assert_eq!(slow.pending(), 54);
            // The second message would pass the slow subscriber's bound: it is
            // disconnected, and counted, as Redis counts a client it closes for its
            // output limit. A third message counts the roomy one only.
            assert_eq!(pubsub.publish(b"news", message), 2);
            assert_eq!(slow.closed(), Some(Closed::Overflow));
            assert_eq!(slow.pending(), 0);
            assert_eq!(roomy.closed(), None);
            assert_eq!(roomy.pending(), 108);
            assert_eq!(pubsub.publish(b"news", message), 1);
        })
        .unwrap();
    });
}

/// The wrong mechanism "the socket's shutdown wakes whoever waits": an idle writer
/// waits for bytes to write and a paused reader for the buffer to drain, neither for
/// the socket. An overflow wakes both, and both end.
#[test]
fn ex3_an_overflow_wakes_the_idle_writer_and_the_paused_reader() {
    watchdog_default(|| {
        run(async {
            let (stream, _client) = pair().await;
            let outbox = Outbox::new(stream, 4);
            let writer = spawn(Rc::clone(&outbox).write_loop());
            // The writer's step runs, finds nothing to write and waits.
            for _ in 0..3 {
                yield_now().await;
            }
            assert!(!outbox.push_bytes(b"too long"));
            writer.await.unwrap();

            let (stream, _client) = pair().await;
            let outbox = Outbox::new(stream, 10);
            // No writer task: the bytes stay, and the reader waits below 5 bytes.
            assert!(outbox.push_bytes(b"12345678"));
            let paused = Rc::clone(&outbox);
            let reader = spawn(async move { paused.below(5).await });
            for _ in 0..3 {
                yield_now().await;
            }
            assert!(!outbox.push_bytes(b"abc"));
            reader.await.unwrap();
            assert_eq!(outbox.closed(), Some(Closed::Overflow));
        })
        .unwrap();
    });
}

/// The wrong mechanism "queue the bytes and let the writer find them": a writer that
/// found nothing to write waits to be woken, and a push within the bound wakes it, so
/// the bytes reach the client.
#[test]
fn ex3_a_push_wakes_the_idle_writer_and_the_bytes_arrive() {
    watchdog_default(|| {
        let got = run(async {
            let (stream, mut client) = pair().await;
            let outbox = Outbox::new(stream, 100);
            let writer = spawn(Rc::clone(&outbox).write_loop());
            for _ in 0..3 {
                yield_now().await;
            }
            assert!(outbox.push_bytes(b"+PONG\r\n"));
            let got = to_thread(move || {
                let mut reply = [0u8; 7];
                std::io::Read::read_exact(&mut client, &mut reply).map(|()| reply)
            })
            .await
            .unwrap();
            outbox.close();
            writer.await.unwrap();
            got
        })
        .unwrap();
        assert_eq!(got.expect("the reply arrives"), *b"+PONG\r\n");
    });
}
