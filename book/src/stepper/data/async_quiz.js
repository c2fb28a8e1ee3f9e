// The scenario `async_quiz` recorded turn by turn for the book's stepper.
// Written by `cargo course figures`; the schema is in oneloop-trace's recording module.
window.ONELOOP_RECORDINGS = window.ONELOOP_RECORDINGS || {};
window.ONELOOP_RECORDINGS["async_quiz"] =
{"schema":"oneloop-recording/1","name":"async_quiz","title":"chapter 8's second quiz: promises and async functions","about":"stage 8, virtual clock: each line placed in the phase that printed it; order only","loop":"node","clock":"virtual","durations":false,
"lanes":[{"key":"callbacks","name":"callbacks","task":null,"colour":"#4D4D4D"}],
"figure":{"file":"figures/async_quiz.svg","width":750,"height":144,"columns":[[116.0,540.0],[540.0,566.0],[566.0,592.0],[592.0,618.0],[618.0,644.0],[644.0,670.0],[670.0,696.0],[696.0,742.0]]},
"cpython":null,
"turns":[
{"number":1,"title":"main","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"script start","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"one start","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"two start","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"script end","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"tick","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"one resumed","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"then 1","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"two resumed","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"microtask","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"then 2","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":2,"title":"timers","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":3,"title":"pending","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":4,"title":"idle","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":5,"title":"poll","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":6,"title":"check","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":7,"title":"close","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":8,"title":"timers","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"timeout","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null}
]};
