//! Your predictions for the two quizzes in `quiz.rs`: the lines each program prints,
//! in order.

/// Exercise 3: what [`phases_quiz`](crate::phases_quiz) prints, in order.
pub fn predict_phases_quiz() -> Vec<&'static str> {
    vec![
        "main",
        "tick",
        "io",
        "immediate 1",
        "tick in immediate",
        "immediate 2",
        "immediate from io",
        "close",
        "immediate 3",
    ]
}

/// Exercise 4: what [`async_quiz`](crate::async_quiz) prints, in order.
pub fn predict_async_quiz() -> Vec<&'static str> {
    vec![
        "script start",
        "one start",
        "two start",
        "script end",
        "tick",
        "one resumed",
        "then 1",
        "two resumed",
        "microtask",
        "then 2",
        "timeout",
    ]
}
