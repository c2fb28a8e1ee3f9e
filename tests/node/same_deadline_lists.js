// Two timers due at 15 ms in two lists: which runs first is Node's tie-break between
// lists. T1 (10 ms) is set at 0. At 5 ms a callback sets T2 (10 ms, due at 15) into
// T1's list; at 8 ms another sets U (7 ms, due at 15) in a list of its own. When T1 runs
// at 10 ms, its list finds T2 not yet due, moves its expiry to 15 and takes a new id,
// above that of U's list: U runs first. On a real clock the deadlines are equal only
// when both callbacks run on their own millisecond, so Node prints either order.
setTimeout(() => console.log('T1 10 ms'), 10);
setTimeout(() => setTimeout(() => console.log('T2 10 ms, set at 5'), 10), 5);
setTimeout(() => setTimeout(() => console.log('U 7 ms, set at 8'), 7), 8);
