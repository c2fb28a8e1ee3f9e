// refresh() re-arms a timer but leaves its ref alone: an unref'd timer refreshed by a
// ref'd one stays unref'd, and the loop ends without it.
const a = setTimeout(() => console.log('never'), 30);
a.unref();
setTimeout(() => {
  a.refresh();
  console.log(`20 ms refreshes A, hasRef ${a.hasRef()}`);
}, 20);
