// Three 0 ms timers share the 1 ms list. The first clears the second, and a nextTick it
// queues clears the third: neither runs, though both were due. The list is left empty
// while the phase runs it; the 50 ms timer in another list still runs.
const timers = [];
timers.push(setTimeout(() => {
  console.log('A clears B');
  clearTimeout(timers[1]);
  process.nextTick(() => {
    console.log('tick clears C');
    clearTimeout(timers[2]);
  });
}, 0));
timers.push(setTimeout(() => console.log('B'), 0));
timers.push(setTimeout(() => console.log('C'), 0));
setTimeout(() => console.log('50 ms'), 50);
