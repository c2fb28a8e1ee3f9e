// Neither a promise that nothing will settle nor an unref'd interval keeps the loop
// alive: the script prints its line and the process ends, the reaction and the
// interval never having run.
new Promise(() => {}).then(() => console.log('never settled'));
setInterval(() => console.log('interval'), 1).unref();
console.log('main');
