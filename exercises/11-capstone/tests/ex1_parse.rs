//! The RESP parser as a property: any bytes, any split.

use ex11_capstone::{Frame, Limits, parse};
use proptest::prelude::*;

/// Small limits, so that random headers often pass them.
const SMALL: Limits = Limits {
    max_bulk: 64,
    max_elements: 16,
    max_depth: 4,
    max_line: 32,
};

fn line() -> impl Strategy<Value = String> {
    proptest::collection::vec(0x20u8..0x7f, 0..20)
        .prop_map(|bytes| String::from_utf8(bytes).expect("printable ASCII"))
}

fn frame() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        line().prop_map(Frame::Simple),
        line().prop_map(Frame::Error),
        any::<i64>().prop_map(Frame::Integer),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..64)).prop_map(Frame::Bulk),
        Just(Frame::Array(None)),
    ];
    leaf.prop_recursive(3, 32, 8, |inner| {
        proptest::collection::vec(inner, 0..8).prop_map(|items| Frame::Array(Some(items)))
    })
}

/// Bytes a frame holds, headers excluded: what the parser had to copy.
fn payload(frame: &Frame) -> usize {
    match frame {
        Frame::Simple(s) | Frame::Error(s) => s.len(),
        Frame::Integer(_) | Frame::Bulk(None) | Frame::Array(None) => 0,
        Frame::Bulk(Some(bytes)) => bytes.len(),
        Frame::Array(Some(items)) => items.iter().map(payload).sum(),
    }
}

/// Every bulk and array in `frame` is within `limits`.
fn within(frame: &Frame, limits: &Limits) -> bool {
    match frame {
        Frame::Bulk(Some(bytes)) => bytes.len() <= limits.max_bulk,
        Frame::Array(Some(items)) => {
            items.len() <= limits.max_elements && items.iter().all(|item| within(item, limits))
        }
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn ex1_arbitrary_bytes_never_panic_and_never_take_more_than_they_hold(
        bytes in proptest::collection::vec(any::<u8>(), 0..256)
    ) {
        if let Ok(Some((frame, used))) = parse(&bytes, &SMALL) {
            prop_assert!(used <= bytes.len());
            prop_assert!(payload(&frame) <= used);
            prop_assert!(within(&frame, &SMALL));
        }
    }

    #[test]
    fn ex1_headers_with_random_lengths_are_refused_past_the_limits_or_parsed_or_wait(
        kind in prop_oneof![Just(b'$'), Just(b'*')],
        length in any::<i64>(),
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut bytes = vec![kind];
        bytes.extend(length.to_string().into_bytes());
        bytes.extend_from_slice(b"\r\n");
        bytes.extend(tail);
        let limit = if kind == b'$' { SMALL.max_bulk } else { SMALL.max_elements };
        match parse(&bytes, &SMALL) {
            Ok(Some((frame, used))) => {
                prop_assert!(length == -1 || (0..=limit as i64).contains(&length));
                prop_assert!(used <= bytes.len());
                prop_assert!(payload(&frame) <= used);
            }
            Ok(None) => prop_assert!((0..=limit as i64).contains(&length)),
            Err(_) => {}
        }
    }

    #[test]
    fn ex1_a_valid_frame_round_trips_and_every_prefix_of_it_waits(frame in frame()) {
        let bytes = frame.to_bytes();
        let limits = Limits::default();
        prop_assert_eq!(parse(&bytes, &limits), Ok(Some((frame.clone(), bytes.len()))));
        for end in 0..bytes.len() {
            prop_assert_eq!(parse(&bytes[..end], &limits), Ok(None), "prefix of {} bytes", end);
        }
    }

    #[test]
    fn ex1_pipelined_frames_come_out_one_at_a_time_in_order(
        frames in proptest::collection::vec(frame(), 1..6)
    ) {
        let mut bytes = Vec::new();
        for frame in &frames {
            frame.encode(&mut bytes);
        }
        let limits = Limits::default();
        let mut at = 0;
        for frame in &frames {
            let (got, used) = parse(&bytes[at..], &limits).unwrap().expect("a whole frame");
            prop_assert_eq!(&got, frame);
            at += used;
        }
        prop_assert_eq!(at, bytes.len());
    }
}

#[test]
fn ex1_a_gigabyte_header_is_refused_before_any_byte_of_it_arrives() {
    let error = parse(b"$1073741824\r\n", &Limits::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Protocol error: invalid bulk length: 1073741824 is over the limit of 1048576"
    );
    let error = parse(b"*99999999999\r\n", &Limits::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("Protocol error: invalid multibulk length")
    );
    // Within the limits, a header alone waits for its bytes.
    assert_eq!(parse(b"$1048576\r\n", &Limits::default()), Ok(None));
    assert_eq!(parse(b"*1048576\r\n", &Limits::default()), Ok(None));
}

#[test]
fn ex1_a_header_line_with_no_end_is_refused_past_the_line_limit() {
    // As Redis counts: the type byte and the digits, `max_line` of them in all with no
    // `\r\n`, are refused, in Redis's words for the kind of count.
    for (kind, words) in [
        (b'$', "too big bulk count string"),
        (b'*', "too big mbulk count string"),
    ] {
        let mut bytes = vec![kind];
        bytes.extend(std::iter::repeat_n(b'1', SMALL.max_line - 1));
        assert_eq!(parse(&bytes, &SMALL), Ok(None));
        bytes.push(b'1');
        assert_eq!(
            parse(&bytes, &SMALL).unwrap_err().to_string(),
            format!("Protocol error: {words}")
        );
    }
}

#[test]
fn ex1_a_bulk_string_is_binary_its_length_not_a_crlf_ends_it() {
    // The bytes may hold `\r\n` and `$`: only the header's length says where they end.
    let bytes = b"$8\r\na\r\nb$1\r\n\r\n+next\r\n";
    assert_eq!(
        parse(bytes, &Limits::default()),
        Ok(Some((Frame::bulk(&b"a\r\nb$1\r\n"[..]), 14)))
    );
    // Nulls are a length of -1, for bulk strings and arrays alike.
    assert_eq!(
        parse(b"$-1\r\n*-1\r\n", &Limits::default()),
        Ok(Some((Frame::Bulk(None), 5)))
    );
    assert_eq!(
        parse(b"*-1\r\n", &Limits::default()),
        Ok(Some((Frame::Array(None), 5)))
    );
}

#[test]
fn ex1_a_frame_one_byte_short_waits_and_one_missing_its_crlf_is_refused() {
    let limits = Limits::default();
    // Everything but the final `\n`: not yet.
    assert_eq!(parse(b"$3\r\nabc\r", &limits), Ok(None));
    assert_eq!(parse(b"*1\r\n$3\r\nabc\r", &limits), Ok(None));
    // The two bytes after the string are not `\r\n`: it can never become a frame.
    assert_eq!(
        parse(b"$3\r\nabcde\r\n", &limits).unwrap_err().to_string(),
        "Protocol error: bulk string not followed by CRLF"
    );
    // `used` counts the frame's own CRLF, and nothing of the next frame.
    let two = b"*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPI";
    assert_eq!(
        parse(two, &limits),
        Ok(Some((Frame::command(["PING"]), 14)))
    );
    assert_eq!(parse(&two[14..], &limits), Ok(None));
}

#[test]
fn ex1_a_bulk_string_must_be_followed_by_cr_then_lf_both_checked() {
    let limits = Limits::default();
    // Either byte of the two alone is not enough, and neither is the wrong order.
    for bytes in [
        &b"$3\r\nabcX\n"[..],
        b"$3\r\nabc\rX",
        b"$3\r\nabc\n\r",
        b"*1\r\n$3\r\nabc\n\n",
    ] {
        assert_eq!(
            parse(bytes, &limits).map_err(|error| error.to_string()),
            Err("Protocol error: bulk string not followed by CRLF".to_owned()),
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn ex1_bad_headers_and_nesting_past_the_limit_are_refused() {
    let refused = |bytes: &[u8]| parse(bytes, &SMALL).unwrap_err().to_string();
    assert_eq!(
        refused(b"?x\r\n"),
        "Protocol error: expected a type byte, got '?'"
    );
    assert_eq!(refused(b":12a\r\n"), "Protocol error: invalid integer");
    assert_eq!(refused(b"$-2\r\n"), "Protocol error: invalid bulk length");
    assert_eq!(
        refused(b"$65\r\n"),
        "Protocol error: invalid bulk length: 65 is over the limit of 64"
    );
    // Four levels of arrays are allowed, a fifth is not.
    assert_eq!(
        parse(b"*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", &SMALL),
        Ok(Some((
            Frame::Array(Some(vec![Frame::Array(Some(vec![Frame::Array(Some(
                vec![Frame::Array(Some(vec![Frame::Integer(1)]))]
            ))]))])),
            20
        )))
    );
    assert_eq!(
        refused(b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"),
        "Protocol error: arrays nested too deep"
    );
}

#[test]
fn ex1_a_deep_pipeline_parses_in_time_proportional_to_its_bytes() {
    // 50,000 commands buffered at once, taken from the front one by one, as the
    // connection does. A parser that rescans the whole buffer on each call does
    // about 10^10 byte steps here and trips the watchdog (a hang detector: the
    // parser under test needs a fraction of a second).
    oneloop_testkit::watchdog_default(|| {
        let one = Frame::command(["GET", "key"]).to_bytes();
        let bytes: Vec<u8> = one
            .iter()
            .copied()
            .cycle()
            .take(one.len() * 50_000)
            .collect();
        let limits = Limits::default();
        let mut at = 0;
        let mut frames = 0;
        while let Some((_, used)) = parse(&bytes[at..], &limits).unwrap() {
            at += used;
            frames += 1;
        }
        assert_eq!((frames, at), (50_000, bytes.len()));
    });
}

/// The wrong mechanism "reserve what the header announces": the parser allocates only
/// for bytes already in the buffer, whatever the limits allow. With no limit on
/// elements or bulk length, headers at the largest length RESP can write still just
/// wait for their bytes; a parser that reserved room for them up front would fail
/// here (a capacity overflow for the array, a failed allocation for the bulk string,
/// which aborts the whole test binary).
#[test]
fn ex1_headers_at_the_largest_length_wait_and_reserve_nothing() {
    let unlimited = Limits {
        max_bulk: usize::MAX,
        max_elements: usize::MAX,
        ..Limits::default()
    };
    assert_eq!(parse(b"*9223372036854775807\r\n", &unlimited), Ok(None));
    assert_eq!(
        parse(b"*9223372036854775807\r\n:1\r\n", &unlimited),
        Ok(None)
    );
    assert_eq!(parse(b"$9223372036854775807\r\n", &unlimited), Ok(None));
    assert_eq!(parse(b"$9223372036854775807\r\nabc", &unlimited), Ok(None));
}

/// The most a parse that waits may ask the allocator for, given `received` bytes: a
/// copy of them, a slot in an array for each three of them (every element takes at
/// least three bytes, `+\r\n`), and 64 bytes of slack for anything small.
fn waiting_allocation_bound(received: usize) -> usize {
    received + received / 3 * std::mem::size_of::<Frame>() + 64
}

/// The wrong mechanism "reserve what the header announces", within the limits: a
/// header that announces 100,000 bytes or 10,000 elements, with only a few of them
/// here, waits, and the parse asks the allocator for no more than the bytes at hand
/// could fill. (The claimed lengths are small enough that a parser which reserves them
/// fails this assertion rather than aborting the binary.)
#[test]
fn ex1_a_header_within_the_limit_reserves_only_what_the_bytes_at_hand_could_fill() {
    let limits = Limits::default();
    let waiting: [&[u8]; 4] = [
        b"$100000\r\nabc",
        b"*10000\r\n:1\r\n:2\r\n",
        b"*10000\r\n$100000\r\nab",
        b"*3\r\n*10000\r\n+ok\r\n",
    ];
    for bytes in waiting {
        let (parsed, asked) = crate::ALLOC.count_bytes(|| parse(bytes, &limits));
        assert_eq!(parsed, Ok(None), "{:?}", String::from_utf8_lossy(bytes));
        let bound = waiting_allocation_bound(bytes.len());
        assert!(
            asked <= bound,
            "{:?}: {asked} bytes allocated for {} bytes at hand (at most {bound})",
            String::from_utf8_lossy(bytes),
            bytes.len()
        );
    }
}

/// The wrong mechanism "copy the buffer, then parse the copy": a parse that finds a
/// whole frame at the front asks the allocator for no more than that frame's own bytes
/// could fill, however much the buffer holds behind it. (Copying the whole buffer on
/// each call is fast enough per byte to pass the pipeline's watchdog, and quadratic.)
#[test]
fn ex1_a_frame_at_the_front_allocates_for_its_own_bytes_not_the_buffers() {
    let limits = Limits::default();
    let one = Frame::command(["GET", "key"]).to_bytes();
    let bytes: Vec<u8> = one
        .iter()
        .copied()
        .cycle()
        .take(one.len() * 10_000)
        .collect();
    let (parsed, asked) = crate::ALLOC.count_bytes(|| parse(&bytes, &limits));
    assert_eq!(
        parsed,
        Ok(Some((Frame::command(["GET", "key"]), one.len())))
    );
    let bound = waiting_allocation_bound(one.len());
    assert!(
        asked <= bound,
        "{asked} bytes allocated for a frame of {} bytes (at most {bound}), with {} \
         bytes in the buffer",
        one.len(),
        bytes.len()
    );
}

/// The wrong mechanism "copy a bulk string's bytes as they come": a lone bulk string
/// is not copied until all its bytes and their `\r\n` are here, so one that arrives
/// in many reads is copied once, not once per read.
#[test]
fn ex1_a_lone_bulk_string_is_not_copied_until_it_has_all_arrived() {
    let limits = Limits::default();
    let mut bytes = b"$100000\r\n".to_vec();
    bytes.resize(bytes.len() + 99_999, b'x');
    let (parsed, asked) = crate::ALLOC.count_bytes(|| parse(&bytes, &limits));
    assert_eq!(parsed, Ok(None));
    assert!(
        asked <= 64,
        "{asked} bytes allocated while the bulk string still waits for its last byte"
    );
    bytes.extend_from_slice(b"x\r\n");
    let (parsed, asked) = crate::ALLOC.count_bytes(|| parse(&bytes, &limits));
    assert_eq!(
        parsed,
        Ok(Some((Frame::bulk(vec![b'x'; 100_000]), bytes.len())))
    );
    assert!(
        asked <= 100_000 + 64,
        "{asked} bytes allocated for one copy"
    );
}
