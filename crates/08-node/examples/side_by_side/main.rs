//! The same program on stage 4's asyncio-style loop and on the Node-style loop,
//! printed side by side; rows where the orders differ are marked.
//!
//! Run with `cargo run -p oneloop-node --example side_by_side`.

mod scenario;

fn main() {
    let asyncio = scenario::asyncio_style().expect("the asyncio-style loop runs");
    let node = scenario::node_style().expect("the Node-style loop runs");
    let (left, right) = ("asyncio-style (stage 4)", "Node-style (stage 8)");
    println!("   {left:<24}{right}");
    let rows = asyncio.len().max(node.len());
    for row in 0..rows {
        let left = asyncio.get(row).map_or("", String::as_str);
        let right = node.get(row).map_or("", String::as_str);
        let mark = if left == right { ' ' } else { '*' };
        println!("{mark}  {left:<24}{right}");
    }
    println!("(* marks a row where the two orders differ)");
}
