// refresh() of a cleared timer does not arm it again.
const a = setTimeout(() => console.log('never'), 20);
clearTimeout(a);
setTimeout(() => {
  a.refresh();
  console.log('10 ms refreshes cleared A');
}, 10);
setTimeout(() => console.log('50 ms'), 50);
