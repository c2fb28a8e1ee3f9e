// Timers run by deadline, not by the order they were set.
console.log('main');
setTimeout(() => console.log('100 ms'), 100);
setTimeout(() => console.log('50 ms'), 50);
setTimeout(() => console.log('0 ms'), 0);
