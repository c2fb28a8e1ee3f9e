//! What CPython 3.11 itself knows of who awaits whom, checked on the real thing: a
//! joining task's `_fut_waiter` is the joined task, but a gathering task's is the
//! gathering future and a task leaving a `TaskGroup` waits on a plain future. The
//! oneloop tree keeps the tasks behind those (see `tree.rs`).

use std::process::Command;

const SCRIPT: &str = r#"
import asyncio, sys
assert sys.version_info[:2] == (3, 11), sys.version

async def child():
    await asyncio.sleep(10)

async def main():
    c = asyncio.create_task(child(), name="child")
    async def joiner():
        await c
    async def gatherer():
        await asyncio.gather(child())
    async def grouper():
        async with asyncio.TaskGroup() as tg:
            tg.create_task(child())
    tasks = [asyncio.create_task(f(), name=f.__name__) for f in (joiner, gatherer, grouper)]
    await asyncio.sleep(0.01)
    for t in tasks:
        waiter = t._fut_waiter
        print(t.get_name(), type(waiter).__name__, waiter.get_name() if isinstance(waiter, asyncio.Task) else "-")
    for t in asyncio.all_tasks():
        if t is not asyncio.current_task():
            t.cancel()

asyncio.run(main())
"#;

#[test]
fn asyncio_311_fut_waiter_names_a_joined_task_but_not_gather_or_group_children() {
    let output = Command::new("python3")
        .args(["-c", SCRIPT])
        .output()
        .expect("python3 (CPython 3.11) is needed by this suite; install it");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "joiner Task child",
            "gatherer _GatheringFuture -",
            "grouper Future -"
        ]
    );
}
