// refresh() re-arms a timer from now, with its own duration: the 200 ms timer refreshed
// at 100 ms is due at 300 ms, between the 250 ms and 350 ms timers. The margins are 50 ms;
// a stall of the refreshing callback longer than that puts it after the 350 ms timer.
const timer = setTimeout(() => console.log('refreshed 200 ms timer'), 200);
setTimeout(() => {
  console.log('100 ms: refresh');
  timer.refresh();
}, 100);
setTimeout(() => console.log('250 ms'), 250);
setTimeout(() => console.log('350 ms'), 350);
