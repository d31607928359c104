"""Type stubs of the native module ``ioscout._native`` (the Rust half of the package). The
public API is the pure-Python ``ioscout`` package, which wraps these."""

from typing import Any, Callable, Iterator, Optional

__version__: str

class Error(Exception):
    """The base of every error ioscout raises."""

    path: Optional[str]
    line: Optional[int]
    offset: Optional[int]

class RequestError(Error):
    """A request ioscout cannot run: an unknown name, a bad option."""

class TraceError(Error):
    """A trace that cannot be read, or bad input under strict=True."""

class DarshanError(Error):
    """A Darshan log that cannot be read."""

class QueryError(Error):
    """A where expression or an aggregation that does not parse."""

class TraceIndexError(Error):
    """A sidecar index that cannot be built or used."""

Progress = Optional[Callable[[int, int], Any]]

class ArrowStream:
    """Record batches taken once by pyarrow through the Arrow C stream interface."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...

class ArrowBatch:
    """One record batch taken by pyarrow through the Arrow C data interface."""

    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

class BatchStream:
    """The batches of a running scan; dropping it or close() stops the scan."""

    def __iter__(self) -> Iterator[ArrowBatch]: ...
    def __next__(self) -> ArrowBatch: ...
    def close(self) -> None: ...
    @property
    def scan(self) -> Optional[str]: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def warnings(self) -> list[str]: ...

def count(paths: list[str], strict: bool = False, threads: int = 0, progress: Progress = None) -> tuple[str, list[str]]: ...
def info(paths: list[str], strict: bool = False, threads: int = 0, progress: Progress = None) -> tuple[str, list[str]]: ...
def analyze(
    paths: list[str], request: str, strict: bool = False, threads: int = 0, progress: Progress = None
) -> tuple[str, list[str], list[tuple[str, ArrowBatch]]]: ...
def diagnose(paths: list[str], request: str, strict: bool = False, threads: int = 0, progress: Progress = None) -> tuple[str, list[str]]: ...
def advise(paths: list[str], request: str, strict: bool = False, threads: int = 0, progress: Progress = None) -> tuple[str, list[str]]: ...
def compare(request: str, html: Optional[str] = None) -> tuple[str, list[str]]: ...
def darshan_summary(request: str) -> tuple[str, list[str]]: ...
def report(
    paths: list[str], out: str, request: str, strict: bool = False, threads: int = 0, progress: Progress = None
) -> tuple[str, list[str]]: ...
def query(
    paths: list[str], request: str, strict: bool = False, threads: int = 0, progress: Progress = None
) -> tuple[Optional[ArrowStream], Optional[str], list[str], list[str], str]: ...
def scan_batches(paths: list[str], request: str, strict: bool = False, threads: int = 0) -> BatchStream: ...
def index(
    paths: list[str], force: bool = False, strict: bool = False, threads: int = 0, progress: Progress = None
) -> tuple[str, list[str]]: ...
def rules() -> str: ...
def explain(code: str) -> str: ...
def read_darshan(path: str, partial: bool = False, threads: int = 0, progress: Progress = None) -> dict[str, Any]: ...
