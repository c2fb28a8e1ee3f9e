//! Exercise 3 (chapter 2.4): every `unsafe` block says why it is sound.
//!
//! The compiler accepts an unsafe block with no reason given; the lesson of this
//! exercise is the reason. So the file you wrote is read here, and every `unsafe {`
//! must have a `// SAFETY:` comment right above the statement that holds it (clippy's
//! `undocumented_unsafe_blocks` asks the same), and every `unsafe fn` a `# Safety`
//! section in its docs.

/// The file compiled as the raw waker: yours, or the reference's with
/// `--features solution`.
#[cfg(not(feature = "solution"))]
const SOURCE: &str = include_str!("../src/raw_waker.rs");
#[cfg(feature = "solution")]
const SOURCE: &str = include_str!("../../../crates/02-future/src/raw_waker.rs");

/// The 1-based lines of `source` whose `unsafe` block or fn lacks its reason.
fn undocumented(source: &str) -> Vec<String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut problems = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let code = line.split_once("//").map_or(*line, |(code, _)| code);
        let above = || {
            lines[..index]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("//") || l.starts_with("#["))
        };
        if code.contains("unsafe {") && !above().any(|l| l.starts_with("// SAFETY:")) {
            problems.push(format!(
                "line {}: `{}` has no `// SAFETY:` comment right above it",
                index + 1,
                line.trim()
            ));
        }
        if code.contains("unsafe fn ") && !above().any(|l| l == "/// # Safety") {
            problems.push(format!(
                "line {}: `{}` has no `# Safety` section in its docs",
                index + 1,
                line.trim()
            ));
        }
    }
    problems
}

#[test]
fn ex3_every_unsafe_block_says_why_it_is_sound() {
    let problems = undocumented(SOURCE);
    assert!(
        problems.is_empty(),
        "src/raw_waker.rs: say why each unsafe operation is sound, on the lines right above \
         it (which pointer, who owns which reference, why it is alive):\n  - {}",
        problems.join("\n  - ")
    );
}

#[test]
fn ex3_the_safety_check_sees_a_missing_comment() {
    // The check itself, on literal samples, so a broken check cannot pass silently.
    let good = "/// # Safety\n///\n/// `p` is live.\nunsafe fn f(p: *const u8) {\n    \
                // SAFETY: `p` is live by the contract.\n    unsafe { p.read() };\n}\n";
    assert!(undocumented(good).is_empty(), "{:?}", undocumented(good));
    let bad = "/// Reads.\nunsafe fn f(p: *const u8) {\n    // read it\n    \
               let x = unsafe { p.read() };\n}\n";
    let found = undocumented(bad);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("line 2:") && found[0].contains("# Safety"));
    assert!(found[1].starts_with("line 4:") && found[1].contains("SAFETY:"));
}
