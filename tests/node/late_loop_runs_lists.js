// Two 10 ms timers set 5 ms apart, and a 12 ms timer set before the second. The main
// script then keeps the thread busy, so all three are overdue when the loop starts.
// Node keeps one list per duration: it runs the 10 ms list to its end (both of its
// timers) before the 12 ms list, though the second 10 ms timer's deadline is later.
// The margins are whole busy waits, so a stall of the machine only makes them wider.
function busy(ms) {
  const start = Date.now();
  while (Date.now() - start < ms) {}
}
setTimeout(() => console.log('10 ms, first'), 10);
setTimeout(() => console.log('12 ms'), 12);
busy(5);
setTimeout(() => console.log('10 ms, second'), 10);
busy(50);
