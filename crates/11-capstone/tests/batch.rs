//! The reader's batch: replies pushed while the reader runs the requests of one read
//! are written by the reader itself when the batch ends, with no writer task.

use std::io::Read;

use capstone_redis::{Frame, Outbox};
use oneloop::{run, to_thread};
use oneloop_testkit::watchdog_default;

mod common;
use common::pair;

#[test]
fn a_batch_of_replies_is_written_by_the_reader_without_the_writer_task() {
    watchdog_default(|| {
        run(async {
            let (stream, mut client) = pair().await;
            // No writer task is spawned in this test: only the batch can write.
            let outbox = Outbox::new(stream, 1024 * 1024);
            outbox.begin_batch();
            assert!(outbox.push(&Frame::ok()));
            assert!(outbox.push(&Frame::Integer(7)));
            assert!(outbox.push(&Frame::bulk("v")));
            // Inside the batch nothing is written yet.
            assert_eq!(outbox.pending(), 16);
            outbox.end_batch();
            assert_eq!(outbox.pending(), 0, "the batch's end wrote the replies");
            let got = to_thread(move || {
                let mut got = [0u8; 16];
                client.read_exact(&mut got).expect("the replies arrive");
                (got, client)
            })
            .await
            .unwrap();
            assert_eq!(&got.0, b"+OK\r\n:7\r\n$1\r\nv\r\n");
            // Outside a batch a push waits for the writer task.
            assert!(outbox.push(&Frame::ok()));
            assert_eq!(outbox.pending(), 5);
        })
        .unwrap();
    });
}
