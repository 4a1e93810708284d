//! The core's one error type. Every fallible function of the core returns
//! `Result<T>`; the PyO3 layer sends an error as `{"error": message,
//! "kind": ...}`, and hrf raises it as `hrf.CoreError` (a limit is not an
//! error: it ends a run with a `LimitOut`, see `limits.rs`).

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An input document that does not decode: bad JSON, a missing field,
    /// an unknown field (named), a value of the wrong type.
    Decode { what: &'static str, message: String },
    /// An input that decodes but is not well formed: an index out of
    /// range, a backward jump, a model node that refers forward.
    Invalid(String),
    /// Work the core does not do.
    Unsupported(String),
    /// An execution of the program may have `events` events, more than
    /// the checker's event sets hold (`max`): `check_json` then takes the
    /// wider checker, and past the widest it is unsupported work.
    TooManyEvents { events: usize, max: usize },
    /// A consistent execution reaches an operation without a meaning (an
    /// access out of bounds): where (thread, instruction) and what, so that
    /// the caller can name the source line.
    Fault { thread: usize, pc: usize, detail: String },
    /// A limit stopped the work (which limit, and how far it got); the
    /// enumerator turns it into the run's `LimitOut`.
    Limit { which: &'static str, detail: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::Invalid(message.into())
    }

    pub fn limit(which: &'static str, detail: impl Into<String>) -> Self {
        Error::Limit { which, detail: detail.into() }
    }

    /// The kind, as the reply names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Decode { .. } => "decode",
            Error::Invalid(_) => "invalid",
            Error::Unsupported(_) | Error::Fault { .. } | Error::TooManyEvents { .. } => "unsupported",
            Error::Limit { .. } => "limit",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Decode { what, message } => write!(f, "{what}: {message}"),
            Error::Invalid(m) | Error::Unsupported(m) => f.write_str(m),
            Error::Fault { thread, pc, detail } => write!(f, "thread {thread} (instruction {pc}) {detail}"),
            Error::TooManyEvents { events, max } => {
                write!(f, "an execution has {events} events; the core handles at most {max}")
            }
            Error::Limit { which, detail } => write!(f, "limit {which}: {detail}"),
        }
    }
}

impl std::error::Error for Error {}
