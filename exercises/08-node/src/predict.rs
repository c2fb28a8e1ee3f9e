//! Your predictions for the two quizzes in `quiz.rs`: the lines each program prints,
//! in order.

/// Exercise 3: what [`phases_quiz`](crate::phases_quiz) prints, in order.
pub fn predict_phases_quiz() -> Vec<&'static str> {
    todo!(
        "stage 8, exercise 3: write the lines phases_quiz prints, in order, as \
         vec![\"main\", ...] — see chapter 8.1"
    )
}

/// Exercise 4: what [`async_quiz`](crate::async_quiz) prints, in order.
pub fn predict_async_quiz() -> Vec<&'static str> {
    todo!(
        "stage 8, exercise 4: write the lines async_quiz prints, in order, as \
         vec![\"script start\", ...] — see chapter 8.3"
    )
}
