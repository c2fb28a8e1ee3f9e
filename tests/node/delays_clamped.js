// Node reads a delay below 1 ms, or above 2^31 - 1 ms, as 1 ms (past 2^31 - 1 it also
// prints a TimeoutOverflowWarning on stderr). The three timers below the first land in
// the 1 ms list, in the order they were set, and run before the 50 ms timer set first.
setTimeout(() => console.log('50 ms'), 50);
setTimeout(() => console.log('2^31 ms'), 2 ** 31);
setTimeout(() => console.log('0 ms'), 0);
setTimeout(() => console.log('1 ms'), 1);
