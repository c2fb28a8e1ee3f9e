//! The `side_by_side` example's verdict, asserted: run on both loops, the program's two
//! orders differ in every row.

use crate::scenario;

use oneloop_testkit::watchdog_default;

#[test]
fn the_two_loops_disagree_in_every_row_of_the_side_by_side_program() {
    let (asyncio, node) = watchdog_default(|| {
        (
            scenario::asyncio_style().expect("runs"),
            scenario::node_style().expect("runs"),
        )
    });
    assert_eq!(asyncio.len(), node.len(), "the same events on both loops");
    let agreeing: Vec<usize> = (0..asyncio.len())
        .filter(|&row| asyncio[row] == node[row])
        .collect();
    assert!(
        agreeing.is_empty(),
        "rows {agreeing:?} agree: {asyncio:?} and {node:?}"
    );
}
