//! The book's figure of one program's tree at two moments is what the
//! `tree_moments` example prints (in virtual time, so every run prints the same).
//! Task ids count from 1 in a fresh process: this binary holds this one test only.

#[path = "../examples/tree_moments.rs"]
mod tree_moments;

#[test]
fn the_book_figure_is_the_tree_moments_output() {
    let book = include_str!("../../../book/src/ch10-shared/tree-moments.txt");
    assert_eq!(
        tree_moments::figure(),
        book,
        "regenerate with: cargo run -p oneloop-shared --example tree_moments > \
         book/src/ch10-shared/tree-moments.txt"
    );
}
