// Timers run by deadline, not by the order they were set. The deadlines are 200 ms
// apart, so a loaded machine that stalls the script between two lines cannot swap them.
console.log('main');
setTimeout(() => console.log('400 ms'), 400);
setTimeout(() => console.log('200 ms'), 200);
setTimeout(() => console.log('0 ms'), 0);
