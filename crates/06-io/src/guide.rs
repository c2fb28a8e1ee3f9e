//! A guide to stage 6, step by step. Every step is a doctest that runs on loopback.
//!
//! # 1. A loop that can wait for sockets
//!
//! [`new_event_loop`](crate::new_event_loop) builds the whole stack so far: stage 5's
//! timer driver around this stage's [`IoDriver`](crate::IoDriver). The I/O layer's
//! shared half, [`Io`](crate::Io), is in the loop's extensions.
//!
//! ```
//! use oneloop_io::{Io, new_event_loop};
//!
//! let event_loop = new_event_loop()?;
//! let io = Io::of(&event_loop).expect("installed by the driver");
//! assert_eq!(io.registrations(), 0);
//! # std::io::Result::Ok(())
//! ```
//!
//! # 2. A reader callback, level-triggered
//!
//! [`Io::add_reader`](crate::Io::add_reader) is asyncio's `loop.add_reader`: the callback
//! is queued in every turn in which the fd is readable. It behaves level-triggered —
//! bytes it leaves unread make it run again next turn — although mio registers
//! edge-triggered: the driver re-arms the fd after each event.
//!
//! ```
//! use std::cell::RefCell;
//! use std::io::Write;
//! use std::rc::Rc;
//! use oneloop_io::{Io, TcpStream, new_event_loop};
//!
//! let mut event_loop = new_event_loop()?;
//! let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! let mut client = std::net::TcpStream::connect(listener.local_addr()?)?;
//! let server = Rc::new(TcpStream::from_std(listener.accept()?.0)?);
//!
//! let got = Rc::new(RefCell::new(Vec::new()));
//! let (socket, seen) = (Rc::clone(&server), Rc::clone(&got));
//! let io = Io::of(&event_loop).expect("installed");
//! io.add_reader(&*server, move || {
//!     // Read one byte only: the rest stays, and the callback runs again next turn.
//!     let mut byte = [0; 1];
//!     if let Ok(1) = socket.try_read(&mut byte) {
//!         seen.borrow_mut().push(byte[0]);
//!     }
//! })?;
//! client.write_all(b"hi")?;
//! event_loop.run_once().expect("one turn");
//! event_loop.run_once().expect("another");
//! assert_eq!(*got.borrow(), b"hi");
//! assert!(io.remove_reader(&*server), "a reader was set");
//! assert!(!io.remove_reader(&*server), "and is gone");
//! # std::io::Result::Ok(())
//! ```
//!
//! # 3. A readiness future
//!
//! A task does not want a callback; it wants to `await`. [`readable`](crate::readable)
//! is a one-shot future, ready when the fd is. Readiness is only a hint: the read after
//! it may still say `WouldBlock` (another reader took the data, or the wake was
//! spurious), so always loop.
//!
//! ```
//! use std::io::{self, Write};
//! use oneloop_io::{TcpStream, new_event_loop, readable};
//!
//! let mut event_loop = new_event_loop()?;
//! let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! let mut client = std::net::TcpStream::connect(listener.local_addr()?)?;
//! let server = TcpStream::from_std(listener.accept()?.0)?;
//! client.write_all(b"ready")?;
//!
//! let n = event_loop
//!     .run_until_complete(async move {
//!         let mut buf = [0; 16];
//!         loop {
//!             match server.try_read(&mut buf) {
//!                 Err(e) if e.kind() == io::ErrorKind::WouldBlock => readable(&server).await?,
//!                 other => return other,
//!             }
//!         }
//!     })
//!     .expect("main finishes")?;
//! assert_eq!(n, 5);
//! # io::Result::Ok(())
//! ```
//!
//! # 4. TCP, all async
//!
//! [`TcpListener`](crate::TcpListener) and [`TcpStream`](crate::TcpStream) wrap that loop
//! up: each method tries the syscall and awaits readiness on `WouldBlock`.
//!
//! ```
//! use oneloop_io::{TcpListener, TcpStream, new_event_loop};
//!
//! let mut event_loop = new_event_loop()?;
//! let reply = event_loop
//!     .run_until_complete(async {
//!         let listener = TcpListener::bind("127.0.0.1:0")?;
//!         let client = TcpStream::connect(listener.local_addr()?).await?;
//!         let (server, _peer) = listener.accept().await?;
//!         server.write_all(b"hello").await?;
//!         let mut buf = [0; 5];
//!         let mut got = 0;
//!         while got < buf.len() {
//!             got += client.read(&mut buf[got..]).await?;
//!         }
//!         std::io::Result::Ok(buf)
//!     })
//!     .expect("main finishes")?;
//! assert_eq!(&reply, b"hello");
//! # std::io::Result::Ok(())
//! ```
//!
//! # 5. Streams: lines in, drained writes out
//!
//! [`StreamReader`](crate::StreamReader) buffers what arrives and hands it out by line
//! or by size; a line longer than its limit is an error that leaves the bytes in the
//! buffer. [`StreamWriter`](crate::StreamWriter) buffers what the kernel does not take
//! at once; `drain` waits while it is above its high-water mark.
//!
//! ```
//! use oneloop_io::{StreamError, TcpListener, TcpStream, new_event_loop};
//!
//! let mut event_loop = new_event_loop()?;
//! let (first, error, kept) = event_loop
//!     .run_until_complete(async {
//!         let listener = TcpListener::bind("127.0.0.1:0")?;
//!         let (_, mut writer) = TcpStream::connect(listener.local_addr()?).await?.into_streams();
//!         let (mut reader, _) = listener.accept().await?.0.into_streams();
//!         writer.write(b"short\n")?;
//!         // More than the kernel may take at once: the writer callback sends the rest
//!         // while this task waits to read.
//!         writer.write(&[b'x'; 100_000])?;
//!         let first = reader.read_line().await.expect("a short line");
//!         let error = reader.read_line().await.expect_err("no newline within 64 KiB");
//!         std::io::Result::Ok((first, error, reader.buffered().len()))
//!     })
//!     .expect("main finishes")?;
//! assert_eq!(first.as_deref(), Some("short\n"));
//! assert!(matches!(error, StreamError::LimitOverrun { .. }));
//! assert!(kept > 64 * 1024, "nothing was thrown away");
//! # std::io::Result::Ok(())
//! ```
//!
//! # 6. Timers over I/O: a timeout that loses nothing
//!
//! The timer driver gives `epoll_wait` its timeout. Here a `read_line` is cancelled by
//! stage 5's `timeout` half-way through a line; the half it had read waits in the
//! buffer, and the next `read_line` returns the whole line.
//!
//! ```
//! use std::io::Write;
//! use std::time::Duration;
//! use oneloop_io::{StreamReader, TcpStream, new_event_loop};
//! use oneloop_timers::timeout;
//!
//! let mut event_loop = new_event_loop()?;
//! let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! let mut client = std::net::TcpStream::connect(listener.local_addr()?)?;
//! let server = TcpStream::from_std(listener.accept()?.0)?;
//! client.write_all(b"half a ")?;
//!
//! let line = event_loop
//!     .run_until_complete(async move {
//!         let mut reader = StreamReader::new(server);
//!         let early = timeout(Duration::from_millis(20), reader.read_line()).await;
//!         assert!(early.is_err(), "timed out with half a line");
//!         client.write_all(b"line\n").expect("loopback write");
//!         reader.read_line().await
//!     })
//!     .expect("main finishes")
//!     .expect("a whole line");
//! assert_eq!(line.as_deref(), Some("half a line\n"));
//! # std::io::Result::Ok(())
//! ```
//!
//! # 7. Serving many clients on one thread
//!
//! [`serve`](crate::serve) accepts for ever and spawns a task per connection; each task
//! waits on its own socket without holding the thread. Here one loop runs an echo server
//! and twenty clients.
//!
//! ```
//! use oneloop_core::spawn;
//! use oneloop_io::{TcpListener, echo_connection, new_event_loop, open_connection, serve};
//!
//! let mut event_loop = new_event_loop()?;
//! let total = event_loop
//!     .run_until_complete(async {
//!         let listener = TcpListener::bind("127.0.0.1:0")?;
//!         let addr = listener.local_addr()?;
//!         drop(spawn(serve(listener, |stream, _| async move {
//!             let _ = echo_connection(stream).await;
//!         })));
//!         let clients: Vec<_> = (0..20)
//!             .map(|n| {
//!                 spawn(async move {
//!                     let (mut reader, mut writer) = open_connection(addr).await?;
//!                     writer.write(format!("{n}\n").as_bytes())?;
//!                     writer.drain().await?;
//!                     let line = reader.read_line().await.map_err(std::io::Error::other)?;
//!                     std::io::Result::Ok(line.map_or(0, |l| l.trim().parse::<u32>().unwrap_or(0)))
//!                 })
//!             })
//!             .collect();
//!         let mut total = 0;
//!         for client in clients {
//!             total += client.await.expect("no panic")?;
//!         }
//!         std::io::Result::Ok(total)
//!     })
//!     .expect("main finishes")?;
//! assert_eq!(total, (0..20).sum::<u32>());
//! # std::io::Result::Ok(())
//! ```
