// Two 20 ms timers in one list, both due in the same timers phase. The first refreshes
// the second, which moves it to the end of its list, due 20 ms after the refresh: it
// leaves this phase and runs after the 30 ms timer. A stall of 10 ms in the main script
// before the 30 ms timer is set puts that timer after the refreshed one.
const b = { timer: null };
setTimeout(() => {
  console.log('A 20 ms refreshes B');
  b.timer.refresh();
}, 20);
b.timer = setTimeout(() => console.log('B 20 ms, refreshed'), 20);
setTimeout(() => console.log('C 30 ms'), 30);
