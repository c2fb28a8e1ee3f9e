//! (filled by its layer's repairs)
