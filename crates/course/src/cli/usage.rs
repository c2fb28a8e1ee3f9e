//! The text of `cargo course help`.

pub(crate) const USAGE: &str = "\
cargo course — work through oneloop, one stage at a time

USAGE:
    cargo course                 your progress, and the next exercise to do
    cargo course test <N>        run stage N's tests against your code
    cargo course hint <N>        reveal the next hint for stage N's first unsolved exercise
    cargo course test <N> --challenge
                                 run the tests that grade stage N's optional challenge
    cargo course hint <N> --challenge
                                 reveal the next hint for stage N's challenge
    cargo course solution <N>    show stage N's reference files (once all its exercises pass)
    cargo course verify          check the course itself: every stage's tests pass with the
                                 reference and fail on the untouched holes and on the
                                 untouched challenge (a hole you solved is skipped, and
                                 said so)
    cargo course book [--open]   build the book with mdBook 0.5.4 (installing it if needed)
    cargo course figures         redraw the book's figures into book/src/figures/
    cargo course help            this text

A stage is a folder exercises/NN-name/. Its optional challenge is the mechanism of one
file of the reference, exercises/NN-name/challenge/<module>.rs, written from its
signatures and the chapter alone, and graded by the tests of the exercises that cover
it. An exercise whose tests run the code of another exercise not yet passed shows as
waiting for it rather than failing. Results are cached
under <target>/course/ and re-run as soon as a file of the stage changes. The target
dir is $CARGO_TARGET_DIR if set, else <workspace>/target.
";
