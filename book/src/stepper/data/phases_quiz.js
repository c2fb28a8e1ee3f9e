// The scenario `phases_quiz` recorded turn by turn for the book's stepper.
// Written by `cargo course figures`; the schema is in oneloop-trace's recording module.
window.ONELOOP_RECORDINGS = window.ONELOOP_RECORDINGS || {};
window.ONELOOP_RECORDINGS["phases_quiz"] =
{"schema":"oneloop-recording/1","name":"phases_quiz","title":"chapter 8's first quiz: every phase but the timers","about":"stage 8, virtual clock: each line placed in the phase that printed it; order only","loop":"node","clock":"virtual","durations":false,
"lanes":[{"key":"callbacks","name":"callbacks","task":null,"colour":"#4D4D4D"}],
"figure":{"file":"figures/phases_quiz.svg","width":750,"height":144,"columns":[[116.0,205.4],[205.4,230.1],[230.1,254.8],[254.8,279.5],[279.5,325.6],[325.6,501.8],[501.8,547.8],[547.8,572.5],[572.5,597.2],[597.2,621.9],[621.9,646.6],[646.6,692.6],[692.6,717.3],[717.3,742.0]]},
"cpython":null,
"turns":[
{"number":1,"title":"main","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"main","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"tick","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":2,"title":"timers","group":"before iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":3,"title":"pending","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":4,"title":"idle","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":5,"title":"poll","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"io","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":6,"title":"check","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"immediate 1","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"tick in immediate","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"immediate 2","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0},{"label":"immediate from io","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":7,"title":"close","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"close","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":8,"title":"timers","group":"iteration 1","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":9,"title":"pending","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":10,"title":"idle","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":11,"title":"poll","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":12,"title":"check","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[{"label":"immediate 3","kind":"callback","lane":0,"task":null,"start_us":0,"end_us":0}],"before":null,"after":null},
{"number":13,"title":"close","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null},
{"number":14,"title":"timers","group":"iteration 2","start_us":0,"park_end_us":0,"end_us":0,"timeout_us":0,"parked_us":0,"timers_moved":0,"io_events":0,"handles":[],"before":null,"after":null}
]};
