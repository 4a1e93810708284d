"""The Rust core (rust/src/lib.rs). Every document crosses as JSON text:
the reply is `{"ok": ...}` or `{"error": message}` (`"internal": true`
when the core caught a panic); a check's reply comes with its outcomes
apart (`check`)."""

__version__: str

def check(program: str, model: str, limits: str, catch_sigint: bool = False) -> tuple[str, str, int]:
    """Check one program IR under one model IR within the limits: (the
    reply, its outcomes an empty list; the outcomes as JSON rows, each
    [values, count, positive, flagged, witness]; how many); with
    catch_sigint, a Ctrl-C stops the check (take_sigint then says so)."""

def check_many(
    jobs: list[tuple[str, str, str]], workers: int | None = None, catch_sigint: bool = False
) -> list[tuple[str, str, int]]:
    """Check (program, model, limits) jobs in parallel; replies in job order."""

def take_sigint() -> bool:
    """Whether a Ctrl-C stopped the last call made with catch_sigint (and forget it)."""

def explore(program: str, limits: str, workers: int | None = None) -> str:
    """Explore a machine program exhaustively within the limits."""

def cancel() -> None:
    """Stop every check and exploration now running (limit "interrupted")."""

def explore_progress() -> tuple[int, int]:
    """(states stored, layers done) of the exploration now running."""

def limit_defaults() -> str:
    """The limits' defaults as JSON: {"check": {...}, "explore": {...}}."""

def ir_schema() -> str:
    """The JSON Schema of every document that crosses, by Rust type name."""

def max_events() -> int:
    """The most events an execution may have."""
