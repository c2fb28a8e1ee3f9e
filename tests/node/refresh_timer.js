// refresh() re-arms a timer from now, with its own duration: the 200 ms timer refreshed
// at 100 ms is due at 300 ms, between the 250 ms and 350 ms timers. The margins are 50 ms;
// a stall of the refreshing callback longer than that puts it after the 350 ms timer.
// The callback refreshes before it prints: Node builds its stdout stream at the first
// console.log, and on a loaded machine that alone can take more than the margin.
const timer = setTimeout(() => console.log('refreshed 200 ms timer'), 200);
setTimeout(() => {
  timer.refresh();
  console.log('100 ms: refresh');
}, 100);
setTimeout(() => console.log('250 ms'), 250);
setTimeout(() => console.log('350 ms'), 350);
