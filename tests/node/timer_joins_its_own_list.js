// A 10 ms timer that sets another 10 ms timer: the new one joins the end of the same
// list, due 10 ms after it was set, so a 15 ms timer set first runs between them.
setTimeout(() => {
  console.log('A 10 ms sets B 10 ms');
  setTimeout(() => console.log('B 10 ms'), 10);
}, 10);
setTimeout(() => console.log('C 15 ms'), 15);
