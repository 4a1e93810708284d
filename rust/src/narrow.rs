//! The checker (relations, executions, model evaluation, enumeration)
//! over event sets of one 64-bit word: executions of at most 64 events,
//! init writes included. Every test that fits runs here; `wide` is the
//! same source over 128-bit sets.

/// A set of events, bit i for event i.
pub type EventSet = u64;

#[path = "enumerate.rs"]
pub mod enumerate;
#[path = "execution.rs"]
pub mod execution;
#[path = "model.rs"]
pub mod model;
#[path = "relation.rs"]
pub mod relation;
