//! The checker of `narrow`, the same source, over 128-bit event sets:
//! executions of 65 to 128 events (`check_json` in lib.rs takes it when
//! `narrow` says a test needs more; an operation on a set costs two words).

/// A set of events, bit i for event i.
pub type EventSet = u128;

#[path = "enumerate.rs"]
pub mod enumerate;
#[path = "execution.rs"]
pub mod execution;
#[path = "model.rs"]
pub mod model;
#[path = "relation.rs"]
pub mod relation;
