// The scenario `node_iteration` recorded turn by turn for the book's stepper.
// Written by `cargo course figures`; the schema is in oneloop-trace's recording module.
window.ONELOOP_RECORDINGS = window.ONELOOP_RECORDINGS || {};
window.ONELOOP_RECORDINGS["node_iteration"] =
{"schema":"oneloop-recording/1","name":"node_iteration","title":"the Node-style loop: main script, then its phases","about":"stage 8, virtual clock: every callback logs its phase; order only","loop":"node","clock":"virtual","durations":false,
"lanes":[{"key":"callbacks","name":"callbacks","task":null,"colour":"#4D4D4D"},{"key":"nextTick","name":"nextTick","task":null,"colour":"#E69F00"},{"key":"microtasks","name":"microtasks","task":null,"colour":"#56B4E9"}],
"figure":{"file":"figures/node_iteration.svg","width":750,"height":192,"columns":[[116.0,242.4],[242.4,267.1],[267.1,311.0],[311.0,335.7],[335.7,462.1],[462.1,506.0],[506.0,550.0],[550.0,574.7],[574.7,599.3],[599.3,624.0],[624.0,648.7],[648.7,673.4],[673.4,698.1],[698.1,742.0]]},
"cpython":null,
"turns":[
{"number":1,"title":"main","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"main script","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"nextTick","kind":"nextTick","lane":1,"task":null,"start_us":0,"end_us":0},{"label":"promise","kind":"microtask","lane":2,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":2,"title":"timers","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":3,"title":"pending","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"pending callback","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":4,"title":"idle","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":5,"title":"poll","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"pipe readable","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"nextTick","kind":"nextTick","lane":1,"task":null,"start_us":0,"end_us":0},{"label":"microtask","kind":"microtask","lane":2,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":6,"title":"check","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"setImmediate","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":7,"title":"close","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"close callback","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":8,"title":"timers","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":9,"title":"pending","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":10,"title":"idle","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":11,"title":"poll","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":12,"title":"check","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":13,"title":"close","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":14,"title":"timers","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"setTimeout 0","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null}
]};
