//! What a socket's wait costs the I/O layer, beyond its syscalls.
//!
//! - **No search of the loop's extensions per wait.** A readiness future finds its
//!   loop's I/O table with `Io::current`, a search of the loop's extensions, on its
//!   first poll. A socket of oneloop's already holds that table (it releases its fd
//!   there when dropped), and its wait now starts in it. The test counts the searches
//!   through the table's counter over many round trips on one connection: none, where
//!   each wait of either side used to make one.

use std::rc::Rc;

use oneloop_core::spawn;
use oneloop_io::{Io, TcpListener, TcpStream, new_event_loop};
use oneloop_testkit::watchdog_default;

/// Round trips on one connection.
const TRIPS: usize = 200;

#[test]
fn a_sockets_waits_find_its_table_without_searching_the_loops_extensions() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let table = Rc::clone(&io);
        let (searches, waits) = event_loop
            .run_until_complete(async move {
                let listener = TcpListener::bind("127.0.0.1:0")?;
                let client = TcpStream::connect(listener.local_addr()?).await?;
                let (server, _) = listener.accept().await?;
                let before = table.searches();
                let echo = spawn(async move {
                    let mut buf = [0; 64];
                    for _ in 0..TRIPS {
                        let n = server.read(&mut buf).await?;
                        server.write_all(&buf[..n]).await?;
                    }
                    // Handed back: a socket's drop searches once, and this test counts waits.
                    std::io::Result::Ok(server)
                });
                super::echo_round_trips(&client, TRIPS).await?;
                let server = echo.await.expect("the echo task finishes")?;
                let searches = table.searches() - before;
                drop((client, server));
                std::io::Result::Ok((searches, TRIPS))
            })
            .expect("the main task finishes")
            .expect("loopback works");
        assert_eq!(
            searches, 0,
            "searches of the loop's extensions over {waits} round trips"
        );
        drop(io);
    });
}
